package io.pgharvest.reaper;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.QueryTextRedaction;
import io.pgharvest.model.SettingRedaction;
import io.pgharvest.model.Source;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one exit of a source's measurements: literals and settings' secrets leave here or nowhere,
 * so everything downstream (sinks, the recent window, change events, status, logs) sees the
 * redacted values; a publisher that fails costs the batch, never the reaper.
 */
final class SourcePublisher {

    /** Its lines are the reaper's: the same logger as {@link SourceReaper}'s own. */
    private static final Logger log = LoggerFactory.getLogger(SourceReaper.class);

    private final String name;
    private final MeasurementPublisher publisher;

    SourcePublisher(String name, MeasurementPublisher publisher) {
        this.name = name;
        this.publisher = publisher;
    }

    /** Hands {@code measurements} of {@code source} on, redacted as the source says. */
    void publish(List<Measurement> measurements, Source source) {
        if (measurements.isEmpty()) {
            return;
        }
        try {
            List<Measurement> shown = source.keepQueryLiterals() ? measurements
                    : QueryTextRedaction.redact(measurements);
            publisher.publish(SettingRedaction.redact(shown, source.keepCommandSettings()));
        } catch (RuntimeException e) {
            log.error("Source {}: could not hand {} measurements to the sinks", name, measurements.size(), e);
        }
    }
}
