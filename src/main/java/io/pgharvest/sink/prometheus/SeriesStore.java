package io.pgharvest.sink.prometheus;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.JsonValues;
import io.pgharvest.sink.MetricCatalog;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest measurement of every (source, metric), turned into Prometheus series on each scrape.
 *
 * <p>Naming: family {@code pgharvest_<metric>_<column>} ({@code pgharvest_<metric>} when the
 * column is named like the metric, e.g. {@code pgharvest_instance_up}); counters get the
 * {@code _total} suffix in the exposition. Every number and boolean column is exported except
 * {@code epoch_ns}; a column is a gauge when the metric definition says so or when the metric is
 * unknown, a counter otherwise. Labels: {@code source}, the source's custom tags and the row's
 * tags (the query's {@code tag_} columns; the row wins on equal names). Names are reduced to
 * {@code [a-zA-Z0-9_]} so every scraper and escaping scheme reads them unchanged; a tag that
 * would collide with {@code source} or use the reserved {@code __} prefix gets a {@code tag_} prefix.
 * In a fleet (several instances on one configuration database) every series also carries
 * {@value #INSTANCE_LABEL}, the fleet instance id of the collector, which a tag of that name
 * cannot override (it gets the {@code tag_} prefix too).
 *
 * <p>Staleness: the series of a (source, metric) disappear when it has not reported for the
 * staleness window or twice its own last reporting gap, whichever is longer, so slow metrics do
 * not blink between scrapes. Thread-safe: writers replace whole entries, scrapes read a view.
 */
final class SeriesStore {

    static final String PREFIX = "pgharvest_";
    static final String INSTANCE_LABEL = "pgharvest_instance";

    private record Key(String source, String metric) {
    }

    private record Entry(Measurement measurement, Instant receivedAt, Duration gap) {
    }

    private record Family(String name, String help, boolean counter, Map<Labels, Double> points) {
    }

    private final ConcurrentHashMap<Key, Entry> latest = new ConcurrentHashMap<>();
    private final MetricCatalog catalog;
    private final Duration staleness;
    private final Clock clock;
    /** The fleet instance id for {@link #INSTANCE_LABEL}; null with a single instance. */
    private final String instanceId;

    SeriesStore(MetricCatalog catalog, Duration staleness, Clock clock) {
        this(catalog, staleness, clock, null);
    }

    SeriesStore(MetricCatalog catalog, Duration staleness, Clock clock, String instanceId) {
        this.catalog = catalog;
        this.staleness = staleness;
        this.clock = clock;
        this.instanceId = instanceId;
    }

    void update(Measurement m) {
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
        Optional<MetricDefinition> definition = catalog.byStorageName(m.metric());
        for (Measurement.Row row : m.rows()) {
            Labels labels = labels(m, row);
            row.values().forEach((column, value) -> {
                OptionalDouble number = JsonValues.numeric(value);
                if (number.isEmpty() || column.equals("epoch_ns") || column.startsWith("tag_")) {
                    return;
                }
                boolean counter = definition.isPresent() && !definition.get().isGauge(column);
                String name = familyName(m.metric(), column, counter);
                // Keyed by the exposed name, so a counter "x" (exposed "x_total") and a gauge
                // "x_total" cannot both appear: the first one seen keeps the name.
                Family family = families.computeIfAbsent(counter ? name + "_total" : name,
                        n -> new Family(name, help(m.metric(), column, definition), counter, new LinkedHashMap<>()));
                if (family.counter() == counter && !(counter && number.getAsDouble() < 0)) {
                    family.points().put(labels, number.getAsDouble());
                }
            });
        }
    }

    private static String help(String metric, String column, Optional<MetricDefinition> definition) {
        String description = definition.map(MetricDefinition::description).orElse("").strip();
        String help = "Column " + column + " of metric " + metric;
        return description.isEmpty() ? help : help + ": " + description.lines().findFirst().orElse("");
    }

    static String familyName(String metric, String column, boolean counter) {
        String base = column.equals(metric) ? metric : metric + "_" + column;
        String name = PREFIX + sanitize(base);
        return counter && name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
    }

    private Labels labels(Measurement m, Measurement.Row row) {
        var labels = new TreeMap<String, String>();
        m.tags().forEach((name, value) -> labels.put(labelName(name), value));
        row.tags().forEach((name, value) -> labels.put(labelName(name), value));
        labels.put("source", m.source());
        if (instanceId != null) {
            labels.put(INSTANCE_LABEL, instanceId);
        }
        return Labels.of(new ArrayList<>(labels.keySet()), new ArrayList<>(labels.values()));
    }

    static String labelName(String tag) {
        String name = sanitize(tag);
        return name.equals("source") || name.equals(INSTANCE_LABEL) || name.startsWith("__") ? "tag_" + name : name;
    }

    /** Anything outside {@code [a-zA-Z0-9_]} becomes {@code _}; a leading digit gets a {@code _} in front. */
    static String sanitize(String name) {
        if (name.isEmpty()) {
            return "_";
        }
        var out = new StringBuilder(name.length() + 1);
        if (Character.isDigit(name.charAt(0))) {
            out.append('_');
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            boolean legal = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
            out.append(legal ? ch : '_');
        }
        return out.toString();
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
