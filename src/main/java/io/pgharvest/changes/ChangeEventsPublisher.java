package io.pgharvest.changes;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sits between the reapers and the sinks: turns the built-in {@code *_hashes} metrics and
 * {@code privilege_changes} ({@link HashedObjects}) into pgwatch's {@code *_changes} measurements
 * (table, index, function, configuration and privilege changes), adds {@code object_changes}
 * events (server restart, role change) from {@code db_stats} ({@link ServerEventDetector}), and
 * passes everything else on unchanged. The hash measurements themselves are not stored, as in
 * pgwatch: they only feed the comparison. State is kept per source and kind in memory; a source's
 * measurements arrive from its one reaper thread.
 */
final class ChangeEventsPublisher implements MeasurementPublisher {

    private final MeasurementPublisher sinks;
    private final Map<List<String>, ChangeDetector> detectors = new ConcurrentHashMap<>();
    private final Map<String, ServerEventDetector> serverEvents = new ConcurrentHashMap<>();

    ChangeEventsPublisher(MeasurementPublisher sinks) {
        this.sinks = sinks;
    }

    @Override
    public void publish(List<Measurement> measurements) {
        List<Measurement> out = null;
        for (int i = 0; i < measurements.size(); i++) {
            Measurement m = measurements.get(i);
            var kind = HashedObjects.byHashesMetric(m.metric());
            if (kind.isEmpty()) {
                List<Measurement.Row> events = m.metric().equals(ServerEventDetector.DB_STATS)
                        ? serverEvents.computeIfAbsent(m.source(), source -> new ServerEventDetector()).compare(m.time(), m.rows())
                        : List.of();
                if (out == null && !events.isEmpty()) {
                    out = new ArrayList<>(measurements.subList(0, i));
                }
                if (out != null) {
                    out.add(m);
                }
                if (!events.isEmpty()) {
                    out.add(new Measurement(m.source(), ServerEventDetector.OBJECT_CHANGES, m.time(), events, m.tags()));
                }
                continue;
            }
            if (out == null) {
                out = new ArrayList<>(measurements.subList(0, i));
            }
            ChangeDetector detector = detectors.computeIfAbsent(List.of(m.source(), m.metric()),
                    key -> new ChangeDetector(kind.get()));
            List<Measurement.Row> changes = detector.compare(m.rows());
            if (!changes.isEmpty()) {
                out.add(new Measurement(m.source(), kind.get().changesTable(), m.time(), changes, m.tags()));
            }
        }
        sinks.publish(out == null ? measurements : out);
    }
}
