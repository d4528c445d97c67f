package io.pgharvest.store.state;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.Preset;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders {@code docs/metrics.md} from the built-in catalog. Run {@link #main} (or the command in
 * {@link #REGENERATE}) after changing {@code catalog/metrics.yaml}; {@code MetricsDocTest} fails
 * while the file is not current.
 */
final class MetricsDoc {

    static final Path FILE = Path.of("docs", "metrics.md");
    static final String WRITE_PROPERTY = "pgharvest.write-docs";
    static final String REGENERATE = "./mvnw -B test -Dtest=MetricsDocTest -D" + WRITE_PROPERTY + "=true";
    static final List<Integer> VERSIONS = List.of(14, 15, 16, 17, 18);
    /** Presets in reading order; the overview table has a column for each of these. */
    static final List<String> MAIN_PRESETS = List.of("minimal", "basic", "standard", "exhaustive", "pgbouncer", "pgpool");

    private MetricsDoc() {
    }

    public static void main(String[] args) throws IOException {
        write();
    }

    static void write() throws IOException {
        Files.writeString(FILE, render(CatalogUnderTest.get()), StandardCharsets.UTF_8);
    }

    static String render(CatalogUnderTest catalog) {
        var out = new StringBuilder();
        Map<String, MetricDefinition> metrics = catalog.metrics();
        long console = metrics.values().stream().filter(CatalogUnderTest::isConsoleCommand).count();
        out.append("# Built-in metrics\n\n")
                .append("<!-- Generated from src/main/resources/catalog/metrics.yaml by io.pgharvest.store.state.MetricsDoc;")
                .append(" do not edit. Regenerate with: ").append(REGENERATE).append(" -->\n\n")
                .append(metrics.size()).append(" metrics: ").append(metrics.size() - console)
                .append(" for PostgreSQL and ").append(console).append(" for pgbouncer's admin console and pgpool-II.")
                .append(" Metrics per PostgreSQL version: ")
                .append(VERSIONS.stream().map(v -> v + ": " + countFor(metrics, v)).collect(Collectors.joining(", ")))
                .append(". [catalog.md](catalog.md) explains the conventions, the presets and how the catalog is tested.\n\n");
        renderPresets(out, catalog);
        renderIndex(out, catalog);
        out.append("## Metrics\n");
        metrics.values().forEach(metric -> renderMetric(out, catalog, metric));
        return out.toString();
    }

    private static long countFor(Map<String, MetricDefinition> metrics, int version) {
        return metrics.values().stream()
                .filter(m -> !CatalogUnderTest.isConsoleCommand(m) && m.sqlFor(version).isPresent()).count();
    }

    private static void renderPresets(StringBuilder out, CatalogUnderTest catalog) {
        out.append("## Presets\n\n| Preset | Metrics | Description |\n|---|---|---|\n");
        orderedPresets(catalog).forEach(p -> out.append("| `").append(p.name()).append("` | ")
                .append(p.metrics().size()).append(" | ").append(p.description()).append(" |\n"));
        out.append('\n');
    }

    private static void renderIndex(StringBuilder out, CatalogUnderTest catalog) {
        out.append("## Overview\n\nIntervals in seconds in the main presets; the standby variants are listed with")
                .append(" each metric below.\n\n| Metric | Versions | Scope | Runs on |");
        MAIN_PRESETS.forEach(name -> out.append(' ').append(name).append(" |"));
        out.append("\n|---|---|---|---|");
        MAIN_PRESETS.forEach(name -> out.append("---|"));
        out.append('\n');
        for (MetricDefinition metric : catalog.metrics().values()) {
            out.append("| [`").append(metric.name()).append("`](#").append(metric.name()).append(") | ")
                    .append(versions(metric)).append(" | ").append(scope(metric)).append(" | ")
                    .append(runsOn(metric)).append(" |");
            for (String name : MAIN_PRESETS) {
                Preset preset = catalog.presets().get(name);
                Integer interval = preset == null ? null : preset.metrics().get(metric.name());
                out.append(' ').append(interval == null ? "" : interval.toString()).append(" |");
            }
            out.append('\n');
        }
        out.append('\n');
    }

    private static void renderMetric(StringBuilder out, CatalogUnderTest catalog, MetricDefinition metric) {
        out.append("\n### ").append(metric.name()).append("\n\n").append(metric.description()).append("\n\n");
        out.append("- Versions: ").append(versions(metric));
        List<Integer> changes = metric.sqls().size() < 2 ? List.of()
                : new ArrayList<>(metric.sqls().keySet()).subList(1, metric.sqls().size());
        if (!changes.isEmpty()) {
            out.append(" (own SQL from ").append(changes.stream().map(String::valueOf)
                    .collect(Collectors.joining(", "))).append(')');
        }
        out.append("\n- Scope: ").append(scope(metric)).append("; runs on: ").append(runsOn(metric));
        if (metric.statementTimeoutSeconds() != null) {
            out.append("; statement timeout: ").append(metric.statementTimeoutSeconds()).append(" s");
        }
        out.append('\n');
        var presets = new LinkedHashMap<String, Integer>();
        orderedPresets(catalog).forEach(p -> {
            if (p.metrics().containsKey(metric.name())) {
                presets.put(p.name(), p.metrics().get(metric.name()));
            }
        });
        out.append("- Presets: ").append(presets.isEmpty() ? "none" : presets.entrySet().stream()
                .map(e -> "`" + e.getKey() + "` (" + e.getValue() + " s)").collect(Collectors.joining(", ")))
                .append('\n');
        List<String> columns = catalog.declaredColumns(metric.name());
        List<String> tags = columns.stream().filter(c -> c.startsWith("tag_")).toList();
        List<String> gauges = columns.stream().filter(c -> !c.startsWith("tag_") && metric.isGauge(c)).toList();
        List<String> others = columns.stream().filter(c -> !tags.contains(c) && !gauges.contains(c)).toList();
        appendColumns(out, "Tags", tags);
        appendColumns(out, "Gauges", gauges);
        appendColumns(out, metric.gauges().contains("*") ? "Text columns" : "Counters and text columns", others);
    }

    private static void appendColumns(StringBuilder out, String label, List<String> columns) {
        if (!columns.isEmpty()) {
            out.append("- ").append(label).append(": ")
                    .append(columns.stream().map(c -> "`" + c + "`").collect(Collectors.joining(", "))).append('\n');
        }
    }

    /** The main presets first, each followed by its standby variant, then any others by name. */
    private static List<Preset> orderedPresets(CatalogUnderTest catalog) {
        var ordered = new ArrayList<Preset>();
        for (String name : MAIN_PRESETS) {
            for (String variant : List.of(name, name + "_standby")) {
                Preset preset = catalog.presets().get(variant);
                if (preset != null) {
                    ordered.add(preset);
                }
            }
        }
        catalog.presets().values().stream().filter(p -> !ordered.contains(p)).forEach(ordered::add);
        return ordered;
    }

    private static String versions(MetricDefinition metric) {
        if (CatalogUnderTest.isConsoleCommand(metric)) {
            return metric.name().startsWith("pgpool_") ? "pgpool" : "pgbouncer";
        }
        if (metric.isNative()) {
            return "any (native)";
        }
        return metric.sqls().keySet().iterator().next() + "+";
    }

    private static String scope(MetricDefinition metric) {
        if (CatalogUnderTest.isConsoleCommand(metric)) {
            return "pooler";
        }
        if (metric.isNative()) {
            return "source";
        }
        return metric.instanceLevel() ? "instance" : "database";
    }

    private static String runsOn(MetricDefinition metric) {
        return metric.nodeStatus() == NodeStatus.ANY ? "any" : metric.nodeStatus().label();
    }
}
