package io.pgharvest.store.state;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The built-in catalog as the catalog tests and the docs generator see it: the definitions as
 * production loads them ({@link BuiltInCatalog}), plus each metric's declared {@code columns},
 * a key of the catalog file that pgharvest's store (like pgwatch) ignores.
 */
record CatalogUnderTest(BuiltInCatalog catalog, Map<String, List<String>> columns) {

    static final String COLUMNS_KEY = "columns";
    private static final CatalogUnderTest LOADED = load();

    CatalogUnderTest {
        columns = Collections.unmodifiableMap(new TreeMap<>(columns));
    }

    static CatalogUnderTest get() {
        return LOADED;
    }

    Map<String, MetricDefinition> metrics() {
        return new TreeMap<>(catalog.metrics());
    }

    Map<String, Preset> presets() {
        return new TreeMap<>(catalog.presets());
    }

    /** Declared result columns after {@code epoch_ns}; empty when none are declared. */
    List<String> declaredColumns(String metric) {
        return columns.getOrDefault(metric, List.of());
    }

    /**
     * Metrics for pgbouncer's (or pgpool's) admin console: their SQL is a SHOW command and they do
     * not run on PostgreSQL.
     */
    static boolean isConsoleCommand(MetricDefinition metric) {
        return !metric.sqls().isEmpty() && metric.sqls().values().stream()
                .allMatch(sql -> sql.strip().toLowerCase(Locale.ROOT).startsWith("show "));
    }

    /** The metrics collected on a server of {@code major} in the given role, PostgreSQL only. */
    List<MetricDefinition> runnableOn(int major, boolean standby) {
        var result = new ArrayList<MetricDefinition>();
        for (MetricDefinition metric : metrics().values()) {
            if (!isConsoleCommand(metric) && metric.sqlFor(major).isPresent() && metric.nodeStatus().matches(standby)) {
                result.add(metric);
            }
        }
        return result;
    }

    private static CatalogUnderTest load() {
        BuiltInCatalog catalog = BuiltInCatalog.load(new PgwatchYaml());
        var columns = new TreeMap<String, List<String>>();
        try (InputStream in = CatalogUnderTest.class.getClassLoader().getResourceAsStream(BuiltInCatalog.RESOURCE)) {
            JsonNode metrics = YAMLMapper.builder().build().readTree(in).path("metrics");
            for (var entry : metrics.properties()) {
                List<String> names = new ArrayList<>();
                entry.getValue().path(COLUMNS_KEY).values().forEach(name -> names.add(name.asString()));
                columns.put(entry.getKey(), List.copyOf(names));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + BuiltInCatalog.RESOURCE, e);
        }
        return new CatalogUnderTest(catalog, columns);
    }
}
