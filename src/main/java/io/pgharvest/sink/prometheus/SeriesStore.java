package io.pgharvest.sink.prometheus;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SeriesMapping;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest measurement of every (source, metric), turned into Prometheus series on each scrape
 * by the {@link SeriesMapping} the remote-write sink shares (names, labels, counters and gauges).
 *
 * <p>Staleness: the series of a (source, metric) disappear when it has not reported for the
 * staleness window or twice its own last reporting gap, whichever is longer, so slow metrics do
 * not blink between scrapes. Thread-safe: writers replace whole entries, scrapes read a view.
 */
final class SeriesStore {

    static final String INSTANCE_LABEL = SeriesMapping.INSTANCE_LABEL;

    private record Key(String source, String metric) {
    }

    private record Entry(Measurement measurement, Instant receivedAt, Duration gap) {
    }

    private record Family(String name, String help, boolean counter, Map<Labels, Double> points) {
    }

    private final ConcurrentHashMap<Key, Entry> latest = new ConcurrentHashMap<>();
    private final SeriesMapping mapping;
    private final Duration staleness;
    private final Clock clock;

    SeriesStore(MetricCatalog catalog, Duration staleness, Clock clock) {
        this(catalog, staleness, clock, null);
    }

    SeriesStore(MetricCatalog catalog, Duration staleness, Clock clock, String instanceId) {
        this.mapping = new SeriesMapping(catalog, instanceId);
        this.staleness = staleness;
        this.clock = clock;
    }

    void update(Measurement m) {
        mapping.remember(m);
        Instant now = clock.instant();
        latest.compute(new Key(m.source(), m.metric()), (key, previous) -> {
            // Spilled or reordered measurements must not replace newer values.
            if (previous != null && previous.measurement().time().isAfter(m.time())) {
                return previous;
            }
            Duration gap = previous == null ? Duration.ZERO : Duration.between(previous.receivedAt(), now);
            return new Entry(m, now, gap);
        });
    }

    /** Current series; stale entries are removed on the way. */
    MetricSnapshots snapshot() {
        Instant now = clock.instant();
        var families = new TreeMap<String, Family>();
        for (var it = latest.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            Entry e = entry.getValue();
            Duration window = e.gap().multipliedBy(2).compareTo(staleness) > 0 ? e.gap().multipliedBy(2) : staleness;
            if (Duration.between(e.receivedAt(), now).compareTo(window) > 0) {
                it.remove();
                continue;
            }
            addSeries(families, e.measurement());
        }
        var snapshots = new ArrayList<MetricSnapshot>(families.size());
        for (Family family : families.values()) {
            snapshots.add(family.counter() ? counter(family) : gauge(family));
        }
        return new MetricSnapshots(snapshots);
    }

    private void addSeries(Map<String, Family> families, Measurement m) {
        var converted = new HashMap<SeriesMapping.RowLabels, Labels>();
        mapping.visit(m, (family, counter, rowLabels, column, value) -> {
            Labels labels = converted.computeIfAbsent(rowLabels,
                    row -> Labels.of(Arrays.asList(row.names()), Arrays.asList(row.values())));
            // Keyed by the exposed name, so a counter "x" (exposed "x_total") and a gauge
            // "x_total" cannot both appear: the first one seen keeps the name.
            Family f = families.computeIfAbsent(SeriesMapping.seriesName(family, counter),
                    n -> new Family(family, mapping.help(m.metric(), column), counter, new LinkedHashMap<>()));
            if (f.counter() == counter) {
                f.points().put(labels, value);
            }
        });
    }

    private static GaugeSnapshot gauge(Family family) {
        List<GaugeSnapshot.GaugeDataPointSnapshot> points = new ArrayList<>();
        family.points().forEach((labels, value) ->
                points.add(new GaugeSnapshot.GaugeDataPointSnapshot(value, labels, null)));
        return new GaugeSnapshot(new MetricMetadata(family.name(), family.help()), points);
    }

    private static CounterSnapshot counter(Family family) {
        List<CounterSnapshot.CounterDataPointSnapshot> points = new ArrayList<>();
        family.points().forEach((labels, value) ->
                points.add(new CounterSnapshot.CounterDataPointSnapshot(value, labels, null, 0L)));
        return new CounterSnapshot(new MetricMetadata(family.name(), family.help()), points);
    }
}
