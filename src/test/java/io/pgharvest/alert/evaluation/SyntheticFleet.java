package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.model.Measurement;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The measurements a fleet of PostgreSQL primaries collecting the {@code standard} preset hands to
 * alert evaluation (for the alert benches, not a test): every metric the built-in pack reads that
 * the preset has, at the preset's interval, plus {@code instance_up} at the shortest one (as the
 * reaper writes it), each with the catalog's real column and tag names. Sources are phased over
 * their intervals as the reapers are. Values are small and move without crossing any threshold of
 * the pack; a source "in trouble" has the long transactions, wraparound age and connection use
 * that raise 13 alerts of the pack per source (long transactions, wraparound per database, connections, sequences).
 */
final class SyntheticFleet {

    /** Rows a metric returns per read (one when not listed): a top-12 plus "other", three databases, ... */
    private static final Map<String, Integer> ROWS = Map.of("query_stats", 13, "xid_wraparound", 3, "sequences", 5,
            "invalid_indexes", 0, "blocking_locks", 0);
    /** Counters whose growth the pack alerts on: constant in a healthy fleet. */
    private static final Set<String> STEADY = Set.of("deadlocks");
    /** What a source in trouble reports (everything else as healthy). */
    private static final Map<String, Double> TROUBLE = Map.of("longest_tx_seconds", 7200.0,
            "longest_idle_in_transaction_s", 7200.0, "longest_query_seconds", 7200.0, "xid_pct_of_wraparound", 80.0,
            "mxid_pct_of_wraparound", 60.0, "used_pct", 95.0);

    /** A metric's columns split into values and tags, and its interval in seconds. */
    record MetricShape(String name, List<String> values, List<String> tags, int intervalSeconds, int rows) {
    }

    private final List<MetricShape> metrics;
    private final int sources;

    private SyntheticFleet(List<MetricShape> metrics, int sources) {
        this.metrics = List.copyOf(metrics);
        this.sources = sources;
    }

    /** The pack's metrics in the standard preset, from the jar's catalog. */
    static SyntheticFleet standard(int sources, Map<String, AlertRuleBody> pack) throws IOException {
        JsonNode catalog;
        try (InputStream in = SyntheticFleet.class.getClassLoader().getResourceAsStream("catalog/metrics.yaml")) {
            catalog = YAMLMapper.builder().build().readTree(in);
        }
        JsonNode preset = catalog.path("presets").path("standard").path("metrics");
        var read = new TreeMap<String, Integer>();
        pack.values().forEach(rule -> {
            if (preset.has(rule.metric())) {
                read.put(rule.metric(), preset.path(rule.metric()).asInt());
            }
        });
        int shortest = preset.valueStream().mapToInt(JsonNode::asInt).min().orElse(60);
        var shapes = new ArrayList<MetricShape>();
        shapes.add(new MetricShape("instance_up", List.of("instance_up"), List.of(), shortest, 1));
        read.forEach((metric, interval) -> {
            var values = new ArrayList<String>();
            var tags = new ArrayList<String>();
            catalog.path("metrics").path(metric).path("columns").valueStream().map(JsonNode::asString)
                    .forEach(column -> {
                        if (column.startsWith("tag_")) {
                            tags.add(column.substring(4));
                        } else {
                            values.add(column);
                        }
                    });
            shapes.add(new MetricShape(metric, values, tags, interval, ROWS.getOrDefault(metric, 1)));
        });
        return new SyntheticFleet(shapes, sources);
    }

    List<MetricShape> metrics() {
        return metrics;
    }

    static String sourceName(int source) {
        return "db-" + source;
    }

    /**
     * What source {@code source}'s reaper publishes at simulated second {@code second}: one batch
     * of the metrics due then (empty when none is).
     */
    List<Measurement> batchAt(int source, long second, Instant time, boolean inTrouble) {
        var batch = new ArrayList<Measurement>();
        for (MetricShape metric : metrics) {
            int phase = Math.floorMod((sourceName(source) + metric.name()).hashCode(), metric.intervalSeconds());
            if ((second + phase) % metric.intervalSeconds() == 0) {
                long read = (second + phase) / metric.intervalSeconds();
                batch.add(measurement(source, metric, read, time, inTrouble));
            }
        }
        return batch;
    }

    Measurement measurement(int source, MetricShape metric, long read, Instant time, boolean inTrouble) {
        var rows = new ArrayList<Measurement.Row>(metric.rows());
        for (int r = 0; r < metric.rows(); r++) {
            var values = new LinkedHashMap<String, Object>();
            for (String column : metric.values()) {
                double healthy = STEADY.contains(column) ? 2.0 : 2.0 + (read + r) % 5;
                values.put(column, column.equals("instance_up") ? 1.0
                        : inTrouble ? TROUBLE.getOrDefault(column, healthy) : healthy);
            }
            var tags = new LinkedHashMap<String, String>();
            for (String tag : metric.tags()) {
                tags.put(tag, tag + "-" + r);
            }
            rows.add(new Measurement.Row(values, tags));
        }
        return new Measurement(sourceName(source), metric.name(), time, rows, Map.of());
    }

    int sources() {
        return sources;
    }
}
