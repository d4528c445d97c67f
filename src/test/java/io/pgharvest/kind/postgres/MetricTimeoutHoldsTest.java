package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.MetricQuery;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A metric's time limit holds whatever a metric does to its session: one that switches the
 * statement timeout off for the rest of the round trip (set_config assembled for query_to_xml)
 * does not lift the limit of the metric after it, and a function that swallows the server's
 * timeout and pgharvest's cancel loses its session at pgharvest's own deadline.
 */
class MetricTimeoutHoldsTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "timeout_holds_db";
    private static final String SWITCH_OFF = "select query_to_xml('select set_' || 'config(''statement_timeout'', ''0'', true)',"
            + " true, false, '') as switched";

    @BeforeAll
    static void aFunctionThatSwallowsCancels() {
        pg.createDatabase(DB);
        pg.execute(DB, """
                create or replace function public.stubborn() returns int language plpgsql as $f$
                begin
                  for i in 1..3 loop
                    begin
                      perform pg_sleep(10);
                    exception when query_canceled then
                      null; -- a statement timeout and a cancel request alike
                    end;
                  end loop;
                  return 1;
                end $f$;
                """);
    }

    @Test
    void aMetricThatSwitchesTheTimeoutOffDoesNotLiftItForTheNextMetric() throws Exception {
        try (Connection c = session()) {
            var pipeline = new QueryPipeline(c, Duration.ofSeconds(5), Duration.ofSeconds(30));
            var queries = List.of(new MetricQuery("a_switch", SWITCH_OFF, Duration.ofSeconds(5)),
                    new MetricQuery("b_sleep", "select pg_sleep(20) as slept", Duration.ofSeconds(5)));
            long started = System.nanoTime();
            assertThatThrownBy(() -> pipeline.run(queries)).isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("57014");
            // cancelled by its 5 s limit, not after the 20 s it asked for
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
            pipeline.close();
        }
    }

    @Test
    void aFunctionThatSwallowsCancelsLosesItsSessionAtPgharvestsDeadline() throws Exception {
        try (Connection c = session()) {
            var pipeline = new QueryPipeline(c, Duration.ofSeconds(5), Duration.ofSeconds(30));
            var queries = List.of(new MetricQuery("stubborn", "select public.stubborn() as s", Duration.ofSeconds(1)));
            long started = System.nanoTime();
            assertThatThrownBy(() -> pipeline.run(queries)).isInstanceOf(SQLException.class);
            // 30 s of sleeping that swallows the 1 s timeout and the cancel: ended by closing the session
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
            assertThat(c.isClosed()).isTrue();
            pipeline.close();
        }
    }

    private static Connection session() throws SQLException {
        Connection c = pg.connect(DB);
        try (Statement st = c.createStatement()) {
            st.execute("set statement_timeout = '5s'");
        }
        return c;
    }
}
