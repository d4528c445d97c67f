package io.pgharvest.sink.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** Application contexts holding the sinks as the application has them, for tests of any sink package. */
public final class SinkContexts {

    private SinkContexts() {
    }

    /**
     * The sink configuration, and the data directory, bound once by {@link HarvestProperties} and
     * handed to the sinks.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(HarvestProperties.class)
    @Import({DataDirectory.class, SinkConfiguration.class})
    public static class SinkComponents {
    }

    /** A runner with {@link SinkComponents} and a meter registry; add properties to configure sinks. */
    public static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withUserConfiguration(SinkComponents.class)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new);
    }

    /** The messages of a start-up failure and all its causes, one per line. */
    public static String messages(Throwable failure) {
        var text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append('\n');
        }
        return text.toString();
    }
}
