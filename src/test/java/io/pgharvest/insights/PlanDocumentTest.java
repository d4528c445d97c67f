package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A plan's constants are redacted in its expressions, and its hash follows its shape, not its estimates. */
@Tag("fast")
class PlanDocumentTest {

    private static final String PLAN = """
            [{"Plan": {"Node Type": "Seq Scan", "Relation Name": "orders", "Alias": "orders",
              "Startup Cost": 0.00, "Total Cost": %s, "Plan Rows": %s, "Plan Width": 4,
              "Filter": "((status = 'alice@example.com'::text) AND (total > 42) AND (id = $1))",
              "Sort Key": ["(name || 'secret-suffix'::text)"]}}]""";

    @Test
    void constantsInConditionsBecomeParameters() {
        PlanDocument plan = PlanDocument.of(PLAN.formatted("10.5", "3"));
        assertThat(plan.json()).doesNotContain("alice@example.com").doesNotContain("42").doesNotContain("secret-suffix")
                .contains("(id = $1)").contains("status = $2::text").contains("total > $3")
                .contains("\"Relation Name\":\"orders\"");
    }

    @Test
    void theHashChangesWithTheShapeNotWithTheEstimates() {
        String hash = PlanDocument.of(PLAN.formatted("10.5", "3")).hash();
        assertThat(hash).hasSize(16);
        assertThat(PlanDocument.of(PLAN.formatted("99.0", "7000")).hash()).isEqualTo(hash);
        assertThat(PlanDocument.of(PLAN.formatted("10.5", "3").replace("Seq Scan", "Index Scan")).hash())
                .isNotEqualTo(hash);
    }

    @Test
    void aStringUnderAFieldNeitherKnownAsANameNorAsAnExpressionIsReplacedWhole() {
        PlanDocument plan = PlanDocument.of("""
                [{"Plan": {"Node Type": "Custom Scan", "Relation Name": "orders", "Future Field": "secret words",
                  "Future List": ["secret-a", {"Alias": "o"}], "Parallel Aware": false, "Plan Rows": 7}}]""");
        assertThat(plan.json()).doesNotContain("secret").contains("\"Future Field\":\"(redacted)\"")
                .contains("\"Node Type\":\"Custom Scan\"", "\"Alias\":\"o\"", "\"Parallel Aware\":false",
                        "\"Plan Rows\":7");
    }
}
