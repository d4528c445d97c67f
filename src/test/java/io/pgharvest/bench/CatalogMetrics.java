package io.pgharvest.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The built-in metric catalog as the benchmark needs it: each metric's SQL for one server major
 * version, and the presets' intervals. Read from the same resource the jar ships
 * ({@code catalog/metrics.yaml}), so pgharvest and the naive collector run identical SQL.
 */
record CatalogMetrics(Map<String, Definition> metrics, Map<String, Map<String, Integer>> presets) {

    static final String RESOURCE = "catalog/metrics.yaml";

    CatalogMetrics {
        metrics = Map.copyOf(metrics);
        presets = Map.copyOf(presets);
    }

    /**
     * One metric: SQL per lowest major version, whether it is instance-level, and whether it also
     * runs on a primary (node status any or primary; the benchmark's servers are all primaries).
     */
    record Definition(String name, TreeMap<Integer, String> sqls, boolean instanceLevel, boolean forPrimary) {

        Definition {
            sqls = new TreeMap<>(sqls);
        }

        /** The SQL with the highest version key not above {@code major}, as pgharvest picks it. */
        Optional<String> sqlFor(int major) {
            var entry = sqls.floorEntry(major);
            return entry == null ? Optional.empty() : Optional.of(entry.getValue());
        }
    }

    static CatalogMetrics load() {
        try (InputStream in = CatalogMetrics.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the class path");
            }
            return parse(new YAMLMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + RESOURCE, e);
        }
    }

    static CatalogMetrics parse(JsonNode root) {
        var metrics = new LinkedHashMap<String, Definition>();
        for (var entry : root.path("metrics").properties()) {
            var sqls = new TreeMap<Integer, String>();
            for (var sql : entry.getValue().path("sqls").properties()) {
                sqls.put(Integer.parseInt(sql.getKey()), sql.getValue().asString());
            }
            metrics.put(entry.getKey(), new Definition(entry.getKey(), sqls,
                    entry.getValue().path("is_instance_level").asBoolean(false),
                    !entry.getValue().path("node_status").asString("any").equals("standby")));
        }
        var presets = new LinkedHashMap<String, Map<String, Integer>>();
        for (var entry : root.path("presets").properties()) {
            var intervals = new LinkedHashMap<String, Integer>();
            for (var metric : entry.getValue().path("metrics").properties()) {
                intervals.put(metric.getKey(), metric.getValue().asInt());
            }
            presets.put(entry.getKey(), intervals);
        }
        return new CatalogMetrics(metrics, presets);
    }

    private static boolean runsOnPrimary(Definition definition, int major) {
        return definition != null && definition.forPrimary() && definition.sqlFor(major).isPresent();
    }

    /**
     * A preset's metrics that run on a primary of {@code major} (SQL for it, node status not standby), with intervals divided by {@code divisor}
     * (rounded up, at least 1 s), in preset order.
     */
    Map<String, Integer> scaledPreset(String preset, int divisor, int major) {
        Map<String, Integer> intervals = presets.get(preset);
        if (intervals == null) {
            throw new IllegalArgumentException("The catalog has no preset '" + preset + "'; it has " + presets.keySet());
        }
        var scaled = new LinkedHashMap<String, Integer>();
        intervals.forEach((metric, seconds) -> {
            Definition definition = metrics.get(metric);
            if (runsOnPrimary(definition, major)) {
                scaled.put(metric, Math.max(1, (seconds + divisor - 1) / divisor));
            }
        });
        return scaled;
    }

    /** The metrics of {@code preset} that run on a primary of {@code major}, each at {@code seconds}, in name order. */
    Map<String, Integer> presetAt(String preset, int major, int seconds) {
        Map<String, Integer> intervals = presets.get(preset);
        if (intervals == null) {
            throw new IllegalArgumentException("The catalog has no preset '" + preset + "'; it has " + presets.keySet());
        }
        var all = new LinkedHashMap<String, Integer>();
        new TreeMap<>(intervals).keySet().forEach(name -> {
            Definition definition = metrics.get(name);
            if (runsOnPrimary(definition, major)) {
                all.put(name, seconds);
            }
        });
        return all;
    }
}
