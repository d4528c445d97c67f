package io.pgharvest;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.core.metrics.jfr.FlightRecorderApplicationStartup;

/** Entry point of the pgharvest collector. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class PgharvestApplication {

    /**
     * The JVM system property that records Spring's start-up steps (each bean's creation, each
     * phase) as JFR events, for a recording started with {@code -XX:StartFlightRecording}: where
     * the seconds from launch to the first measurement go (docs/performance.md, "The current
     * profile"). A JVM property, not an application setting: it must be known before the context
     * exists.
     */
    static final String STARTUP_EVENTS = "pgharvest.startup-events";

    public static void main(String[] args) {
        var application = new SpringApplication(PgharvestApplication.class);
        if (Boolean.getBoolean(STARTUP_EVENTS)) {
            application.setApplicationStartup(new FlightRecorderApplicationStartup());
        }
        application.run(args);
    }
}
