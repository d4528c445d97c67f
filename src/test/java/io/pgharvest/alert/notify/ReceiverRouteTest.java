package io.pgharvest.alert.notify;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.FieldProblem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Which alerts a receiver gets: label matchers as Alertmanager reads them (regular expressions
 * anchored at both ends, negation, a missing label as the empty value), routes by severity and
 * matchers, and bad routes as problems naming the field.
 */
@Tag("fast")
class ReceiverRouteTest {

    private static final Map<String, String> PROD_CRITICAL =
            Map.of("alertname", "replication_lag", "source", "prod-db1", "severity", "critical");

    @Test
    void matchersCompareEquallyOrByAnAnchoredRegexAndMayBeNegated() {
        assertThat(LabelMatcher.equal("source", "prod-db1").matches(PROD_CRITICAL)).isTrue();
        assertThat(LabelMatcher.equal("source", "prod").matches(PROD_CRITICAL)).isFalse();
        assertThat(new LabelMatcher("source", "prod-.*", true, true).matches(PROD_CRITICAL)).isTrue();
        // Anchored at both ends: "db" is inside the value, but the value is not "db".
        assertThat(new LabelMatcher("source", "db", true, true).matches(PROD_CRITICAL)).isFalse();
        assertThat(new LabelMatcher("source", "prod-.*", true, false).matches(PROD_CRITICAL)).isFalse();
        assertThat(new LabelMatcher("source", "test-.*", true, false).matches(PROD_CRITICAL)).isTrue();
        // Omitted flags: an equality matcher.
        assertThat(new LabelMatcher("source", "prod-.*", null, null).matches(Map.of("source", "prod-.*"))).isTrue();
    }

    @Test
    void aMissingLabelHasTheEmptyValue() {
        assertThat(LabelMatcher.equal("team", "").matches(PROD_CRITICAL)).isTrue();
        assertThat(new LabelMatcher("team", null, false, false).matches(PROD_CRITICAL)).isFalse();
        assertThat(new LabelMatcher("team", ".+", true, true).matches(PROD_CRITICAL)).isFalse();
        assertThat(LabelMatcher.all(List.of(), PROD_CRITICAL)).isTrue();
    }

    @Test
    void aRouteNeedsOneOfItsSeveritiesAndEveryMatcher() {
        var route = new ReceiverRoute(List.of("critical"), List.of(new LabelMatcher("source", "prod-.*", true, true),
                LabelMatcher.equal("alertname", "replication_lag")));
        assertThat(route.matches(PROD_CRITICAL)).isTrue();
        assertThat(route.matches(Map.of("alertname", "replication_lag", "source", "prod-db1", "severity", "warning")))
                .isFalse();
        assertThat(route.matches(Map.of("alertname", "replication_lag", "source", "test-db1", "severity", "critical")))
                .isFalse();
        assertThat(route.matches(Map.of("alertname", "xid_age", "source", "prod-db1", "severity", "critical")))
                .isFalse();
        assertThat(new ReceiverRoute(null, List.of(LabelMatcher.equal("source", "prod-db1"))).matches(
                Map.of("source", "prod-db1", "severity", "warning"))).isTrue();
        assertThat(ReceiverRoute.EVERYTHING.matches(Map.of())).isTrue();
    }

    @Test
    void aBadRouteIsAProblemPerOffendingField() {
        var route = new ReceiverRoute(List.of("critical", "page"), List.of(LabelMatcher.equal("source", "x"),
                new LabelMatcher("", "(unclosed", true, true)));
        assertThat(route.problems("route")).extracting(FieldProblem::field)
                .containsExactly("route.severities[1]", "route.matchers[1].name", "route.matchers[1].value");
        assertThat(new ReceiverRoute(List.of("warning"), List.of(LabelMatcher.equal("source", "(unclosed")))
                .problems("route")).isEmpty();
    }
}
