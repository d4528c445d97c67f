package io.pgharvest.kind.postgres;

import io.pgharvest.kind.MetricQuery;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The server's error points at the failing metric of a pipeline when it names an object that
 * does not exist at a position in one metric's SQL, and at none when that is not certain.
 * Real errors from a real server, sent the way {@link QueryPipeline} sends a pipeline.
 */
class FailurePointerTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final MetricQuery TABLES = query("tables", "select count(*) as n from pg_class");
    private static final MetricQuery EXTENSION = query("buffers",
            "select count(*) as n from pg_buffercache_missing b join pg_database d on d.oid = b.reldatabase");
    private static final MetricQuery FUNCTION = query("advisor", "select * from qualstats_advisor_missing(5)");
    private static final MetricQuery COLUMN = query("column", "select no_such_column_here from pg_database");
    private static final MetricQuery RUNTIME = query("runtime", "select 1 / (random() * 0)::int as v");

    @Test
    void pointsAtTheMetricWhoseSqlHasTheMissingNameAtTheReportedPosition() throws SQLException {
        for (MetricQuery culprit : List.of(EXTENSION, FUNCTION, COLUMN)) {
            List<MetricQuery> sent = List.of(TABLES, culprit, TABLES, RUNTIME);
            assertThat(FailurePointer.culprit(failureOf(sent), sent)).as(culprit.metric()).contains(culprit);
        }
    }

    @Test
    void pointsAtNothingWithoutAPositionOrWhenTwoMetricsMatch() throws SQLException {
        List<MetricQuery> runtime = List.of(TABLES, RUNTIME);
        assertThat(FailurePointer.culprit(failureOf(runtime), runtime)).isEmpty();

        MetricQuery twin = query("twin", EXTENSION.sql());
        List<MetricQuery> twins = List.of(EXTENSION, twin);
        assertThat(FailurePointer.culprit(failureOf(twins), twins)).isEmpty();

        assertThat(FailurePointer.culprit(new SQLException("no server message"), twins)).isEqualTo(Optional.empty());
    }

    @Test
    void readsTheNameAtAPosition() {
        assertThat(FailurePointer.nameAt("select * from pg_buffercache b", 14)).isEqualTo("pg_buffercache");
        assertThat(FailurePointer.nameAt("select * from \"Odd Name\"", 14)).isEqualTo("Odd Name");
        assertThat(FailurePointer.nameAt("select * from pg_buffercache b", 16)).isNull(); // inside a word
        assertThat(FailurePointer.nameAt("select 1", 40)).isNull();
        assertThat(FailurePointer.nameAt("select * from \"a \"\"b\"\"\"", 14)).isEqualTo("a \"b\"");
        // what only looks like a name, inside a constant or a comment, is none
        assertThat(FailurePointer.nameAt("select 'x pg_buffercache' as a", 10)).isNull();
        assertThat(FailurePointer.nameAt("select 1 /* pg_buffercache */", 12)).isNull();
    }

    /** The error of {@code queries} sent as one pipeline, as QueryPipeline frames them. */
    private static SQLException failureOf(List<MetricQuery> queries) throws SQLException {
        var parts = new java.util.ArrayList<String>();
        parts.add("begin transaction read only");
        queries.forEach(q -> parts.add(q.sql()));
        parts.add("rollback");
        try (Connection connection = pg.connect("postgres");
             var statement = connection.prepareStatement(String.join("\n;\n", parts))) {
            SQLException failure = catchThrowableOfType(SQLException.class, statement::execute);
            assertThat((Object) failure).as("the pipeline fails").isNotNull();
            try (Statement rollback = connection.createStatement()) {
                rollback.execute("rollback");
            }
            return failure;
        }
    }

    private static MetricQuery query(String metric, String sql) {
        return new MetricQuery(metric, sql, Duration.ofSeconds(5));
    }
}
