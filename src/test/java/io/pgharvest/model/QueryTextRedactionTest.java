package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryTextRedactionTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void columnsAndTagsNamedQueryOrEndingInQueryAreStatementTexts() {
        assertThat(List.of("query", "last_query", "blocked_query", "blocker_query"))
                .allMatch(QueryTextRedaction::isQueryText);
        assertThat(List.of("query_id", "queryid", "avg_query_count", "query_duration_s", "queries"))
                .noneMatch(QueryTextRedaction::isQueryText);
    }

    @Test
    void redactsTheTextColumnsOfResultRowsAndKeepsTheirOtherValues() {
        var columns = new RowValues.Columns(List.of("pid", "query_id", "query"));
        var row = new Measurement.Row(new RowValues(columns, new Object[] {7L, "-42", "select 'secret', 5"}),
                RowTags.sharingNames(new String[] {"last_query", "datname"}, new String[] {"select 1", "app"}));
        var m = new Measurement("src", "long_running_queries", NOW, List.of(row), Map.of("env", "prod"));

        Measurement redacted = QueryTextRedaction.redact(m);

        assertThat(redacted.rows().getFirst().values())
                .containsExactly(Map.entry("pid", 7L), Map.entry("query_id", "-42"), Map.entry("query", "select $1, $2"));
        assertThat(redacted.rows().getFirst().tags()).containsEntry("last_query", "select $1").containsEntry("datname", "app");
        assertThat(redacted.tags()).isEqualTo(Map.of("env", "prod"));
        assertThat(redacted.time()).isEqualTo(NOW);
    }

    @Test
    void rowsOfNativeMetricsAsPlainMapsAreRedactedTooNullsKept() {
        var values = new LinkedHashMap<String, Object>();
        values.put("query", "select 'x'");
        values.put("plan", null);
        values.put("blocked_query", null);
        var m = new Measurement("src", "custom", NOW, List.of(new Measurement.Row(values, Map.of())), Map.of());

        Map<String, Object> redacted = QueryTextRedaction.redact(m).rows().getFirst().values();

        assertThat(redacted).containsEntry("query", "select $1").containsEntry("plan", null)
                .containsEntry("blocked_query", null);
    }

    @Test
    void aBatchWithoutStatementTextsIsHandedOnAsItIs() {
        var columns = new RowValues.Columns(List.of("xact_commit", "queries"));
        var m = new Measurement("src", "db_stats", NOW,
                List.of(new Measurement.Row(new RowValues(columns, new Object[] {1L, 2L}), Map.of())), Map.of());
        List<Measurement> batch = List.of(m, m);

        assertThat(QueryTextRedaction.redact(batch)).isSameAs(batch);
    }

    @Test
    void onlyTheMeasurementsWithTextsOfABatchAreReplaced() {
        var plain = new Measurement("src", "db_stats", NOW,
                List.of(new Measurement.Row(Map.of("xact_commit", 1L), Map.of())), Map.of());
        var text = new Measurement("src", "idle_in_transaction", NOW,
                List.of(new Measurement.Row(Map.of("last_query", "update t set a = 1"), Map.of())), Map.of());

        List<Measurement> redacted = QueryTextRedaction.redact(List.of(plain, text, plain));

        assertThat(redacted).hasSize(3);
        assertThat(redacted.get(0)).isSameAs(plain);
        assertThat(redacted.get(1).rows().getFirst().values()).containsEntry("last_query", "update t set a = $1");
        assertThat(redacted.get(2)).isSameAs(plain);
    }
}
