package io.pgharvest.alert.pack;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.alert.rule.MetricColumns;
import io.pgharvest.alert.rule.MetricLookup;
import io.pgharvest.alert.rule.RuleCompiler;
import io.pgharvest.operations.selfmetrics.SelfMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The built-in pack: every rule compiles against the catalog's real column names and reads a
 * metric pgharvest collects, and every rule of prometheus/rules/pgharvest.rules.yml has a built-in
 * twin with the same threshold, for and severity, or a reason it has none (pgharvest's own sink
 * rules read the state pgharvest publishes about itself, SelfMetrics, where Prometheus reads the
 * sink meters).
 */
@Tag("fast")
class AlertPackTest {

    /** Prometheus rule -> its built-in twins (one per metric an "or" of the Prometheus rule reads). */
    private static final Map<String, List<String>> TWINS = Map.ofEntries(
            Map.entry("PostgresSourceDown", List.of("PostgresSourceDown")),
            Map.entry("PostgresReplicationLagHigh", List.of("PostgresReplicationLagHigh", "PostgresStandbyReplayLagHigh")),
            Map.entry("PostgresReplicationSlotInactive", List.of("PostgresReplicationSlotInactive")),
            Map.entry("PostgresReplicationSlotRetainsTooMuchWal", List.of("PostgresReplicationSlotRetainsTooMuchWal")),
            Map.entry("PostgresTransactionIdWraparoundApproaching", List.of("PostgresTransactionIdWraparoundApproaching")),
            Map.entry("PostgresTransactionIdWraparoundImminent", List.of("PostgresTransactionIdWraparoundImminent")),
            Map.entry("PostgresConnectionsNearMax", List.of("PostgresConnectionsNearMax")),
            Map.entry("PostgresLongRunningTransaction", List.of("PostgresLongRunningTransaction")),
            Map.entry("PostgresIdleInTransaction", List.of("PostgresIdleInTransaction")),
            Map.entry("PgharvestSinkSpilling", List.of("PgharvestSinkSpilling")),
            Map.entry("PgharvestSinkDropping", List.of("PgharvestSinkDropping")),
            Map.entry("PgharvestSinkRejecting", List.of("PgharvestSinkRejecting")));

    /** Prometheus rules without a twin, and why (docs/alerts.md says the same). */
    private static final Map<String, String> NO_TWIN = Map.of(
            "PgharvestDown", "a pgharvest that is down evaluates nothing: only an outside Prometheus can tell");

    /** Metrics that are not in the SQL catalog: written by the reaper itself, by a kind, or pgharvest's own state. */
    private static final Set<String> NOT_IN_CATALOG = Set.of("instance_up", "patroni_cluster_unlocked",
            SelfMetrics.SINKS, SelfMetrics.REAPERS);

    /**
     * The series a Prometheus rule reads for a twin's metric: a source's metric is
     * {@code pgharvest_<metric>}; pgharvest's own state is the sink meters' {@code pgharvest_sink_*}
     * on /actuator/prometheus, the same numbers the pack reads as rows.
     */
    private static final Map<String, String> SERIES_OF_SELF = Map.of(SelfMetrics.SINKS, "pgharvest_sink_");

    private final Map<String, AlertRuleBody> pack = BuiltInRules.load();

    @Test
    void everyBuiltInRuleCompilesAgainstTheCatalogsColumnsAndReadsACollectedMetric() throws IOException {
        JsonNode catalog = YAMLMapper.builder().build().readTree(Path.of("src/main/resources/catalog/metrics.yaml")
                .toFile()).path("metrics");
        MetricColumns columns = MetricColumns.builtIn();
        MetricLookup strict = new MetricLookup() {
            @Override
            public boolean exists(String metric) {
                return catalog.has(metric) || NOT_IN_CATALOG.contains(metric);
            }

            @Override
            public Optional<Set<String>> columns(String metric) {
                return columns.of(metric);
            }
        };
        var compiler = new RuleCompiler(10_000);
        assertThat(pack).hasSizeGreaterThanOrEqualTo(20);
        for (AlertRuleBody body : pack.values()) {
            CompiledRule rule = compiler.compile(body, strict);
            assertThat(rule.rule().summary()).as(body.name()).isNotBlank();
            if (!NOT_IN_CATALOG.contains(body.metric())) {
                assertThat(columns.of(body.metric())).as("columns of %s (%s)", body.metric(), body.name()).isPresent();
            }
        }
    }

    @Test
    void everyPrometheusRuleHasATwinWithItsThresholdForAndSeverityOrAReason() throws IOException {
        JsonNode groups = YAMLMapper.builder().build().readTree(Path.of("prometheus/rules/pgharvest.rules.yml").toFile())
                .path("groups");
        var prometheus = new LinkedHashMap<String, JsonNode>();
        groups.valueStream().flatMap(g -> g.path("rules").valueStream())
                .forEach(rule -> prometheus.put(rule.path("alert").asString(), rule));
        var unmapped = new ArrayList<String>(prometheus.keySet());
        unmapped.removeAll(TWINS.keySet());
        unmapped.removeAll(NO_TWIN.keySet());
        assertThat(unmapped).as("Prometheus rules with neither a twin nor a reason").isEmpty();
        assertThat(prometheus.keySet()).containsAll(TWINS.keySet()).containsAll(NO_TWIN.keySet());

        TWINS.forEach((name, twins) -> {
            JsonNode rule = prometheus.get(name);
            String expr = rule.path("expr").asString();
            for (String twinName : twins) {
                AlertRuleBody twin = pack.get(twinName);
                assertThat(twin).as("built-in twin %s of %s", twinName, name).isNotNull();
                assertThat(twin.severity()).as(twinName).isEqualTo(rule.path("labels").path("severity").asString());
                assertThat(duration(twin.forDuration())).as(twinName).isEqualTo(duration(rule.path("for").asString("0s")));
                assertThat(expr).as("%s reads %s", name, twin.metric())
                        .contains(SERIES_OF_SELF.getOrDefault(twin.metric(), "pgharvest_" + twin.metric()));
                if (expr.startsWith("increase(")) { // a counter's growth over a window: "previous", firing that long
                    assertThat(twin.condition()).as(twinName).contains("previous.");
                    assertThat(expr).as(twinName).contains("[" + twin.keepFiringFor() + "]");
                }
                (twin.params() == null ? Map.<String, Double>of() : twin.params()).values().forEach(threshold -> assertThat(expr.replace(" ", "")).as(twinName)
                        .containsAnyOf(">" + Math.round(threshold), "10*1024*1024*1024"));
            }
        });
    }

    private static Duration duration(String text) {
        return io.pgharvest.api.BlockingQuery.parseDuration(text);
    }
}
