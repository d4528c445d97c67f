package io.pgharvest.alert.rule;

import io.pgharvest.operations.selfmetrics.SelfMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The columns each built-in metric returns, as the catalog lists them ({@code columns:} of
 * {@code catalog/metrics.yaml}, checked against real servers by CatalogVersionMatrixTest), with
 * {@code tag_} columns under their tag name; {@code instance_up}, which the reaper writes
 * itself; and pgharvest's own state ({@link SelfMetrics}). A condition over a built-in metric may
 * name only these.
 */
public final class MetricColumns {

    public static final String INSTANCE_UP = "instance_up";
    private static final String RESOURCE = "catalog/metrics.yaml";

    private final Map<String, Set<String>> columns;

    MetricColumns(Map<String, Set<String>> columns) {
        this.columns = Map.copyOf(columns);
    }

    public static MetricColumns builtIn() {
        try (InputStream in = MetricColumns.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            JsonNode metrics = YAMLMapper.builder().build().readTree(in).path("metrics");
            var byMetric = new HashMap<String, Set<String>>();
            for (var entry : metrics.properties()) {
                JsonNode listed = entry.getValue().path("columns");
                if (listed.isArray()) {
                    var names = new LinkedHashSet<String>();
                    listed.valueStream().map(JsonNode::asString).map(MetricColumns::withoutTagPrefix).forEach(names::add);
                    byMetric.put(entry.getKey(), Set.copyOf(names));
                }
            }
            byMetric.put(INSTANCE_UP, Set.of(INSTANCE_UP));
            byMetric.putAll(SelfMetrics.COLUMNS);
            return new MetricColumns(byMetric);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /** Whether pgharvest writes {@code metric} itself, for every source or for itself (not in the SQL catalog). */
    public static boolean isWrittenByPgharvest(String metric) {
        return metric.equals(INSTANCE_UP) || SelfMetrics.COLUMNS.containsKey(metric);
    }

    /** The columns of the built-in {@code metric}; empty when the catalog does not list them. */
    public Optional<Set<String>> of(String metric) {
        return Optional.ofNullable(columns.get(metric));
    }

    private static String withoutTagPrefix(String column) {
        return column.startsWith("tag_") ? column.substring(4) : column;
    }
}
