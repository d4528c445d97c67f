package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRules;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.OutputNames;
import io.pgharvest.model.Preset;
import io.pgharvest.model.PresetRules;
import io.pgharvest.model.RowTags;
import io.pgharvest.model.RowValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Rules every built-in metric and preset follows; the SQL itself is run by CatalogVersionMatrixTest. */
@Tag("fast")
class BuiltInCatalogTest {

    private static final List<String> LEVELS = List.of("minimal", "basic", "standard", "exhaustive");
    /** Native metrics that read the monitored database (query insights): PostgreSQL metrics for the presets. */
    private static final Set<String> NATIVE_DATABASE_METRICS = Set.of("query_stats", "query_texts", "query_plans",
            "active_sessions");
    /**
     * SQL metrics the presets leave out for the native metric that collects the same into the same
     * storage (active_sessions samples sessions every second and sums them into query_samples rows).
     */
    private static final Map<String, String> SUPERSEDED = Map.of("query_samples", "active_sessions");

    private final CatalogUnderTest catalog = CatalogUnderTest.get();
    private final ConfigSnapshot snapshot = new ConfigSnapshot(0, Map.of(), catalog.metrics(), catalog.presets(), Map.of());

    @Test
    void theCatalogHasAtLeastFiftyMetricsForEverySupportedVersion() {
        for (int major = 14; major <= 18; major++) {
            int version = major;
            long available = catalog.metrics().values().stream().filter(m -> m.sqlFor(version).isPresent()).count();
            assertThat(available).as("metrics available on PostgreSQL %d", major).isGreaterThanOrEqualTo(50);
        }
    }

    @Test
    void everyMetricAndPresetPassesTheStoreValidation() {
        var problems = new ArrayList<String>();
        catalog.metrics().values().forEach(m -> MetricRules.check(m).forEach(p -> problems.add(m.name() + ": " + p)));
        catalog.presets().values().forEach(p -> PresetRules.check(p, snapshot)
                .forEach(problem -> problems.add("preset " + p.name() + ": " + problem)));
        assertThat(problems).isEmpty();
    }

    @Test
    void everyMetricIsDescribedAndDeclaresItsColumnsAndGauges() {
        var problems = new ArrayList<String>();
        for (MetricDefinition metric : catalog.metrics().values()) {
            List<String> columns = catalog.declaredColumns(metric.name());
            if (metric.description().length() < 40) {
                problems.add(metric.name() + ": the description is missing or too short to help an operator");
            }
            if (columns.isEmpty()) {
                problems.add(metric.name() + ": no columns declared");
            }
            if (columns.size() != new TreeSet<>(columns).size()) {
                problems.add(metric.name() + ": a column is declared twice");
            }
            for (String gauge : metric.gauges()) {
                if (!gauge.equals("*") && !columns.contains(gauge)) {
                    problems.add(metric.name() + ": gauge '" + gauge + "' is not a declared column");
                }
            }
            if (!CatalogUnderTest.isConsoleCommand(metric) && !metric.isNative()
                    && metric.statementTimeoutSeconds() == null) {
                problems.add(metric.name() + ": no statement timeout of its own");
            }
        }
        assertThat(problems).isEmpty();
    }

    /** No built-in metric is refused by the one rule of output names (docs/sinks.md "Names"). */
    @Test
    void everyMetricsDeclaredColumnsFollowTheRuleOfOutputNames() {
        var problems = new ArrayList<String>();
        for (MetricDefinition metric : catalog.metrics().values()) {
            List<String> columns = catalog.declaredColumns(metric.name());
            var values = new ArrayList<String>();
            var tags = new ArrayList<String>();
            for (String column : columns) {
                if (column.startsWith("tag_")) {
                    tags.add(column.substring("tag_".length()));
                } else {
                    values.add(column);
                }
            }
            String[] tagNames = tags.toArray(String[]::new);
            var row = new Measurement.Row(new RowValues(new RowValues.Columns(values), new Object[values.size()]),
                    RowTags.of(tagNames, tags.stream().map(tag -> "x").toArray(String[]::new), tagNames.length));
            OutputNames.repeated(columns).ifPresent(problem -> problems.add(metric.name() + ": " + problem));
            OutputNames.clash(metric.effectiveStorageName(), column -> !metric.isGauge(column), List.of(row))
                    .ifPresent(problem -> problems.add(metric.name() + ": " + problem));
        }
        assertThat(problems).isEmpty();
    }

    /** The engine sends each tick's metrics as ONE multi-statement prepared statement. */
    @Test
    void everyQueryIsOneStatementWithoutBindPlaceholders() {
        var problems = new ArrayList<String>();
        catalog.metrics().values().forEach(metric -> metric.sqls().forEach((version, sql) -> {
            String code = withoutLiteralsAndComments(sql);
            if (code.contains("?")) {
                problems.add(metric.name() + " " + version + ": '?' outside a string literal (pgjdbc bind placeholder)");
            }
            if (code.strip().contains(";")) {
                problems.add(metric.name() + " " + version + ": more than one statement");
            }
            if (!CatalogUnderTest.isConsoleCommand(metric) && !code.contains("as epoch_ns")) {
                problems.add(metric.name() + " " + version + ": no epoch_ns column");
            }
        }));
        assertThat(problems).isEmpty();
    }

    @Test
    void theStatementCheckLooksOnlyAtCodeOutsideLiteralsAndComments() {
        String code = withoutLiteralsAndComments(
                "select ';' as a, 'it''s?' as b, \"x?\" as c, $q$ ; ? $q$ as d -- ; ?\n /* ? */ from t where x = 1");

        assertThat(code).doesNotContain(";").doesNotContain("?").contains("from t where x = 1");
        assertThat(withoutLiteralsAndComments("select 1; select 2")).contains(";");
        assertThat(withoutLiteralsAndComments("select data ? 'key' from t")).contains("?");
    }

    @Test
    void eachPresetLevelContainsThePreviousOne() {
        for (int i = 1; i < LEVELS.size(); i++) {
            for (String suffix : List.of("", "_standby")) {
                Set<String> smaller = preset(LEVELS.get(i - 1) + suffix).metrics().keySet();
                Set<String> larger = preset(LEVELS.get(i) + suffix).metrics().keySet();
                assertThat(larger).as("%s%s contains %s%s", LEVELS.get(i), suffix, LEVELS.get(i - 1), suffix)
                        .containsAll(smaller);
            }
        }
    }

    @Test
    void exhaustivePresetsHoldEveryPostgresMetricForTheirRole() {
        Set<String> postgres = names(m -> !CatalogUnderTest.isConsoleCommand(m) && !SUPERSEDED.containsKey(m.name())
                && (!m.isNative() || NATIVE_DATABASE_METRICS.contains(m.name())));
        Set<String> forStandby = names(m -> postgres.contains(m.name()) && m.nodeStatus().matches(true));
        SUPERSEDED.forEach((sql, replacement) -> assertThat(catalog.metrics().get(replacement).effectiveStorageName())
                .as("%s stores where %s did", replacement, sql).isEqualTo(catalog.metrics().get(sql).effectiveStorageName()));

        assertThat(preset("exhaustive").metrics().keySet()).isEqualTo(postgres);
        assertThat(preset("exhaustive_standby").metrics().keySet()).isEqualTo(forStandby);
    }

    @Test
    void fullIsExhaustivePlusEveryNativeMetricAsPgwatchSelectsThem() {
        Set<String> natives = names(MetricDefinition::isNative);
        var expected = new TreeSet<>(preset("exhaustive").metrics().keySet());
        expected.addAll(natives);

        assertThat(natives).isEqualTo(io.pgharvest.model.NativeNames.KNOWN.keySet());
        assertThat(preset("full").metrics().keySet()).isEqualTo(expected);
        assertThat(preset("full").metrics()).containsEntry("cpu_load", 60).containsEntry("psutil_cpu", 120)
                .containsEntry("psutil_mem", 120).containsEntry("psutil_disk", 120)
                .containsEntry("psutil_disk_io_total", 120).containsEntry("server_log_event_counts", 60);
    }

    @Test
    void standbyPresetsLeaveOutPrimaryOnlyMetricsAndAddReplayLag() {
        for (String level : LEVELS) {
            Preset standby = preset(level + "_standby");
            assertThat(nodeStatuses(standby)).as(standby.name()).doesNotContain(NodeStatus.PRIMARY);
            assertThat(standby.metrics()).as(standby.name()).containsKeys("standby_replay", "wal_receiver");
            if (!level.equals("exhaustive")) {
                assertThat(nodeStatuses(preset(level))).as(level).doesNotContain(NodeStatus.STANDBY);
            }
        }
    }

    @Test
    void thePoolerPresetsHoldTheirConsoleCommandsAndNoOtherPresetHoldsAny() {
        Set<String> console = names(CatalogUnderTest::isConsoleCommand);

        for (String pooler : List.of("pgbouncer", "pgpool")) {
            assertThat(preset(pooler).metrics().keySet()).as(pooler)
                    .isEqualTo(names(m -> console.contains(m.name()) && m.name().startsWith(pooler + "_")));
        }
        assertThat(preset("pgbouncer").metrics()).containsKeys("pgbouncer_stats", "pgbouncer_clients");
        assertThat(preset("pgpool").metrics()).containsKeys("pgpool_stats", "pgpool_processes");
        catalog.presets().values().stream().filter(p -> !p.name().equals("pgbouncer") && !p.name().equals("pgpool"))
                .forEach(p -> assertThat(p.metrics().keySet()).as(p.name()).doesNotContainAnyElementsOf(console));
    }

    /** Session samples are the exception: an active session history needs a sample every few seconds. */
    @Test
    void intervalsAreAtLeastFifteenSecondsAndAtMostOneDay() {
        catalog.presets().values().forEach(preset -> preset.metrics().forEach((metric, interval) ->
                assertThat(interval).as("%s in %s", metric, preset.name())
                        .isBetween(metric.equals("active_sessions") ? 1 : metric.equals("query_samples") ? 10 : 15, 86_400)));
    }

    private Preset preset(String name) {
        Preset preset = catalog.presets().get(name);
        assertThat(preset).as("preset %s", name).isNotNull();
        return preset;
    }

    private Set<NodeStatus> nodeStatuses(Preset preset) {
        return preset.metrics().keySet().stream().map(m -> catalog.metrics().get(m).nodeStatus()).collect(Collectors.toSet());
    }

    private Set<String> names(java.util.function.Predicate<MetricDefinition> filter) {
        return catalog.metrics().values().stream().filter(filter).map(MetricDefinition::name)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The SQL with string literals, dollar-quoted strings, quoted identifiers and comments blanked out. */
    static String withoutLiteralsAndComments(String sql) {
        var out = new StringBuilder();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                while (end > 0 && end + 1 < sql.length() && sql.charAt(end + 1) == c) {
                    end = sql.indexOf(c, end + 2);
                }
                i = end < 0 ? sql.length() : end + 1;
                out.append(' ');
            } else if (c == '$' && sql.indexOf('$', i + 1) > i && sql.substring(i, sql.indexOf('$', i + 1) + 1)
                    .matches("\\$[A-Za-z_]*\\$")) {
                String tag = sql.substring(i, sql.indexOf('$', i + 1) + 1);
                int end = sql.indexOf(tag, i + tag.length());
                i = end < 0 ? sql.length() : end + tag.length();
                out.append(' ');
            } else if (sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? sql.length() : end;
            } else if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? sql.length() : end + 2;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
