package io.pgharvest.serverlog;

import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The log insights metrics for the native metric registry: one {@link LogInsightMetric} bean per
 * {@link LogCategory}, named for its metric ({@code log_autovacuum} ...), so a new category is a new
 * enum constant and nothing here.
 */
@Configuration(proxyBeanMethods = false)
@Import(LogInsightsConfiguration.PerCategory.class)
class LogInsightsConfiguration {

    /** Registers the beans from the list of categories (Spring 7's programmatic registration). */
    static final class PerCategory implements BeanRegistrar {

        @Override
        public void register(BeanRegistry registry, Environment environment) {
            for (LogCategory category : LogCategory.values()) {
                registry.registerBean(category.metric(), NativeMetric.class, spec -> spec.supplier(
                        context -> new LogInsightMetric(category, context.bean(LogPositions.class))));
            }
        }
    }
}
