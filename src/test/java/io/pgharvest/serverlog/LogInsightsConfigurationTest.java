package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

class LogInsightsConfigurationTest {

    @Test
    void registersOneMetricPerCategoryNamedForIt() {
        try (var context = new AnnotationConfigApplicationContext()) {
            context.registerBean(LogPositions.class, LogPositions::inMemory);
            context.register(LogInsightsConfiguration.class);
            context.refresh();

            Map<String, NativeMetric> metrics = context.getBeansOfType(NativeMetric.class);

            String[] expected = Arrays.stream(LogCategory.values()).map(LogCategory::metric).toArray(String[]::new);
            assertThat(metrics).containsOnlyKeys(expected);
            metrics.forEach((bean, metric) -> assertThat(metric.name()).isEqualTo(bean));
        }
    }
}
