package io.pgharvest.alert.evaluation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.pgharvest.alert.store.AlertState;
import java.util.ArrayList;
import java.util.Locale;

/**
 * The series {@code pgharvest_alert} on {@code /actuator/prometheus}: 1 for every pending and
 * firing alert evaluated here, labelled {@code alertname}, {@code source}, {@code severity} and
 * {@code alertstate} (as Prometheus's own {@code ALERTS} series), refreshed when an alert changes.
 */
final class AlertMeters {

    private final MultiGauge gauge;

    AlertMeters(AlertEvaluator evaluator, MeterRegistry meters) {
        this.gauge = MultiGauge.builder("pgharvest.alert")
                .description("Pending and firing alerts of the sources this instance evaluates (1 each)").register(meters);
        evaluator.onChange(this::refresh);
    }

    void refresh(java.util.List<AlertState> alerts) {
        var rows = new ArrayList<MultiGauge.Row<?>>();
        for (AlertState alert : alerts) {
            rows.add(MultiGauge.Row.of(Tags.of("alertname", alert.rule(), "source", alert.source(),
                    "severity", alert.labels().getOrDefault("severity", ""),
                    "alertstate", alert.status().name().toLowerCase(Locale.ROOT)), 1));
        }
        gauge.register(rows, true);
    }
}
