package io.pgharvest.alert.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Measurement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A rule is checked once, when it is saved: every offending field is named, a CEL error with its
 * position; a valid rule's condition runs on a row's columns, tags, source and parameters.
 */
@Tag("fast")
class RuleCompilerTest {

    private static final MetricLookup CATALOG = new MetricLookup() {
        @Override
        public boolean exists(String metric) {
            return metric.equals("backends") || metric.equals("my_own");
        }

        @Override
        public Optional<Set<String>> columns(String metric) {
            return metric.equals("backends") ? MetricColumns.builtIn().of(metric) : Optional.empty();
        }
    };
    private final RuleCompiler compiler = new RuleCompiler(10_000);

    @Test
    void aValidRuleRunsOnARowWithItsParametersAndPerSourceOverrides() {
        CompiledRule rule = compiler.compile(body("longest_tx_seconds > params.max_s && source.group == 'prod'",
                "Open for {{ value }} s on {{ source }} (limit {{ params.max_s }})", "{{ total }} sessions"), CATALOG);
        assertThat(rule.valueColumn()).isEqualTo("longest_tx_seconds");
        var row = new Measurement.Row(Map.of("longest_tx_seconds", 20L, "total", 3L), Map.of());
        Map<String, Object> prodSource = Map.of("name", "db1", "group", "prod", "kind", "postgres", "tags", Map.of());
        assertThat(rule.holds(vars(row, prodSource, rule.rule().paramsFor("db1")))).isTrue();
        assertThat(rule.holds(vars(row, prodSource, rule.rule().paramsFor("tolerant")))).isFalse();
        assertThat(rule.holds(vars(row, Map.of("name", "db1", "group", "test", "kind", "postgres", "tags", Map.of()),
                rule.rule().paramsFor("db1")))).isFalse();
        assertThat(rule.summary().render(Map.of("value", "20", "source", "db1", "params.max_s", "10")))
                .isEqualTo("Open for 20 s on db1 (limit 10)");
    }

    @Test
    void aNullColumnDoesNotMatchAndAMetricWithoutKnownColumnsAcceptsAnyName() {
        CompiledRule rule = compiler.compile(new AlertRuleBody("own", "my_own", "lag > 3", null, null, null, null,
                "{{ anything }}", null, null, null, null, null, null), CATALOG);
        var nullLag = new java.util.HashMap<String, Object>();
        nullLag.put("lag", null);
        assertThat(rule.holds(ConditionVariables.of(new Measurement.Row(nullLag, Map.of()), null, "s", Map.of(), null)))
                .isFalse();
        assertThat(rule.holds(ConditionVariables.of(new Measurement.Row(Map.of("lag", 4.5), Map.of()), null, "s",
                Map.of(), null))).isTrue();
    }

    @Test
    void theResolverTheEvaluatorUsesAnswersAsTheVariablesMapForNullsTagsShadowingSourceParamsAndPrevious() {
        var nullLag = new java.util.HashMap<String, Object>();
        nullLag.put("lag", null);
        nullLag.put("state", "active");
        var rows = List.of(new Measurement.Row(nullLag, Map.of("datname", "app")),
                new Measurement.Row(Map.of("lag", 4.5, "state", "idle", "datname", "column"), Map.of("datname", "app")),
                new Measurement.Row(Map.of("lag", new java.math.BigDecimal("7"), "state", "idle"), Map.of()),
                new Measurement.Row(Map.of("lag", 1L, "flag", true), Map.of("datname", "other")));
        var conditions = List.of("lag > 3", "lag > 3 || state == 'active'", "datname == 'app'", "flag == true",
                "source.name == 's' && source.group == ''", "lag > params.max", "lag > previous.lag",
                "!has(previous.lag) || lag != previous.lag");
        Map<String, Double> params = Map.of("max", 5.0);
        Map<String, Object> previous = Map.of("lag", 2.0);
        int held = 0;
        for (String condition : conditions) {
            CompiledRule rule = compiler.compile(new AlertRuleBody("own", "my_own", condition, null, null, null, null,
                    "", null, null, null, params, null, null), CATALOG);
            for (Measurement.Row row : rows) {
                for (Map<String, Object> before : java.util.Arrays.asList(previous, null)) {
                    boolean byMap = rule.holds(ConditionVariables.of(row, null, "s", params, before));
                    assertThat(rule.holds(ConditionVariables.resolver(row, null, "s", params, before)))
                            .as("%s on %s, previous %s", condition, row, before).isEqualTo(byMap);
                    held += byMap ? 1 : 0;
                }
            }
        }
        assertThat(held).as("the conditions hold on some rows and not on others").isBetween(10, 50);
    }

    @Test
    void aSyntaxErrorNamesTheConditionAndItsPosition() {
        assertThat(problems(body("longest_tx_seconds >", "", "")))
                .singleElement().satisfies(p -> {
                    assertThat(p.field()).isEqualTo("condition");
                    assertThat(p.message()).contains("line 1, column");
                });
    }

    @Test
    void anUnknownColumnAndAnUnknownParameterAreNamedWithTheirPositions() {
        List<FieldProblem> problems = problems(body("oldest_xact_s > 300.0 || total > params.nope", "", ""));
        assertThat(problems).extracting(FieldProblem::field).containsOnly("condition");
        assertThat(problems).extracting(FieldProblem::message).anySatisfy(m -> assertThat(m)
                .contains("unknown column 'oldest_xact_s'").contains("line 1, column 1"))
                .anySatisfy(m -> assertThat(m).contains("params.nope").contains("line 1, column"));
    }

    @Test
    void aConditionOverTheCostLimitIsRefused() {
        String nested = "source.tags.all(a, source.tags.all(b, source.tags.all(c, a == b)))";
        assertThat(problems(body(nested, "", ""))).singleElement()
                .satisfies(p -> assertThat(p.message()).contains("cost").contains("10000"));
    }

    @Test
    void aTemplateNamingAMissingFieldAndOtherBadFieldsAreAllNamed() {
        var bad = new AlertRuleBody("x y", "backends", "total > 1", "soon", "1m", "fatal", Map.of("severity", "x"),
                "{{ no_such_column }}", "{{ params.missing }}", "ftp://runbook", null, null,
                Map.of("db1", Map.of("other", 1.0)), null);
        assertThat(problems(bad)).extracting(FieldProblem::field).containsExactlyInAnyOrder("name", "for",
                "severity", "overrides.db1.other", "labels.severity", "runbook", "summary", "description");
        assertThat(problems(body("total > 1", "", "")).isEmpty()).isTrue();
        assertThat(problems(new AlertRuleBody("r", "nope", "total > 1", null, null, null, null, null, null, null,
                null, null, null, null))).extracting(FieldProblem::field).containsExactly("metric");
        assertThat(problems(new AlertRuleBody("r", "backends", "total > 1 ? 'a' : 'b'", null, null, null, null, null, null, null,
                null, null, null, null))).extracting(FieldProblem::field).containsExactly("condition");
    }

    private List<FieldProblem> problems(AlertRuleBody body) {
        try {
            compiler.compile(body, CATALOG);
            return List.of();
        } catch (InvalidRuleException e) {
            return e.problems();
        }
    }

    private static AlertRuleBody body(String condition, String summary, String description) {
        return new AlertRuleBody("LongTx", "backends", condition, "1s", null, "critical", Map.of("team", "db"),
                summary, description, "https://runbooks.example/longtx", null, Map.of("max_s", 10.0),
                Map.of("tolerant", Map.of("max_s", 100.0)), null);
    }

    private static Map<String, Object> vars(Measurement.Row row, Map<String, Object> source, Map<String, Double> params) {
        var variables = new java.util.HashMap<String, Object>(ConditionVariables.columns(row));
        variables.put("source", source);
        variables.put("params", params);
        variables.put("previous", Map.of());
        return variables;
    }

    @Test
    void theCompilerRefusesNothingSilently() {
        assertThatThrownBy(() -> compiler.compile(body("", "", ""), CATALOG)).isInstanceOf(InvalidRuleException.class)
                .hasMessageContaining("condition");
    }
}
