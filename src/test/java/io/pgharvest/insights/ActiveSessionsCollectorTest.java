package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.sql.MetricSql;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * active_sessions on a real server, on a time scale five times shorter than production's: a
 * statement of 0.6 s run every 4 s (3 s every 20 s) is seen by a sampler every 0.2 s (1 s) within
 * 12 s (a minute), as one row per session and statement with the number of samples that saw it,
 * delivered every 2 s (10 s) and nothing in between; a sampling shared by two databases of one
 * instance serves both with their own sessions.
 */
class ActiveSessionsCollectorTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "insights_active_sessions";
    private static final String OTHER_DB = "insights_active_sessions_b";
    private static final Duration SAMPLE_EVERY = Duration.ofMillis(200);

    @BeforeAll
    static void createDatabases() {
        pg.createDatabase(DB);
        pg.createDatabase(OTHER_DB);
    }

    @Test
    void aShortStatementRunEveryFewSecondsIsSeenWithinAMinuteScaledDown() throws Exception {
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> {
            try (Connection work = pg.connect(DB); Statement st = work.createStatement()) {
                st.execute("set application_name = 'short-waits'");
                while (running.get()) {
                    st.execute("select pg_sleep(0.6)");
                    Thread.sleep(3400);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (Connection monitor = pg.connect(DB)) {
            var collector = new ActiveSessionsCollector(Duration.ofSeconds(2));
            var seen = new ArrayList<Measurement.Row>();
            Instant start = Instant.now();
            Instant deadline = start.plusSeconds(12);
            int emptyRuns = 0;
            while (Instant.now().isBefore(deadline) && seen.stream().noneMatch(ActiveSessionsCollectorTest::isTheSleep)) {
                Map<String, List<Measurement.Row>> out = collector.collectByName(target(monitor, DB, Instant.now(),
                        InstanceShelf.NONE), "query_samples");
                if (out.isEmpty()) {
                    emptyRuns++;
                } else {
                    seen.addAll(out.get("query_samples"));
                }
                Thread.sleep(SAMPLE_EVERY.toMillis());
            }
            Measurement.Row sleep = seen.stream().filter(ActiveSessionsCollectorTest::isTheSleep).findFirst()
                    .orElseThrow(() -> new AssertionError("the 0.6 s statement was not sampled within 12 s: " + seen));
            assertThat(sleep.tags()).containsEntry("dbname", DB).containsEntry("wait_event_type", "Timeout")
                    .containsEntry("wait_event", "PgSleep");
            assertThat(sleep.tags().get("queryid")).matches("-?[0-9]+");
            assertThat((Long) sleep.values().get("samples")).isBetween(1L, 4L);
            assertThat((Long) sleep.values().get("samplings")).isGreaterThanOrEqualTo((Long) sleep.values().get("samples"));
            assertThat((Double) sleep.values().get("duration_s")).isBetween(0.0, 0.7);
            assertThat(emptyRuns).as("runs between the row intervals deliver nothing").isPositive();
            assertThat(seen).noneMatch(r -> "pgharvest".equals(r.values().get("application_name")));
        } finally {
            running.set(false);
            workload.join();
        }
    }

    @Test
    void oneSamplingOfAnInstanceServesEachDatabaseWithItsOwnSessions() throws Exception {
        try (Connection a = pg.connect(DB); Connection b = pg.connect(OTHER_DB);
                Connection busy = pg.connect(OTHER_DB); Statement st = busy.createStatement()) {
            st.execute("begin");
            st.execute("select 1");
            // busy idles in a transaction in OTHER_DB; a and b are the two sources' sessions.
            var shelf = InstanceShelf.newShared();
            var first = new ActiveSessionsCollector(Duration.ofSeconds(1));
            var second = new ActiveSessionsCollector(Duration.ofSeconds(1));
            Instant t0 = Instant.now();
            first.collect(target(a, DB, t0, shelf));
            second.collect(target(b, OTHER_DB, t0.plusMillis(100), shelf));
            List<Measurement.Row> mine = first.collect(target(a, DB, t0.plusSeconds(1), shelf));
            List<Measurement.Row> theirs = second.collect(target(b, OTHER_DB, t0.plusMillis(1100), shelf));
            assertThat(theirs).anySatisfy(r -> {
                assertThat(r.values()).containsEntry("state", "idle in transaction");
                assertThat(r.tags()).containsEntry("dbname", OTHER_DB);
            });
            assertThat(mine).noneMatch(r -> "idle in transaction".equals(r.values().get("state")));
            st.execute("rollback");
        }
    }

    @Test
    void theSamplingQueriesAreNativeQueriesTheEngineSends() {
        assertThat(MetricSql.problemOfNativeQuery(SessionSampling.DATABASE_SQL)).isEmpty();
        assertThat(MetricSql.problemOfNativeQuery(SessionSampling.INSTANCE_SQL)).isEmpty();
    }

    private static boolean isTheSleep(Measurement.Row row) {
        return "short-waits".equals(row.values().get("application_name")) && "active".equals(row.values().get("state"));
    }

    private static NativeTarget target(Connection connection, String database, Instant now, InstanceShelf shelf) {
        return new NativeTarget("active-" + database, database, pg.majorVersion(), ":0", true,
                new JdbcSqlReader(connection), SAMPLE_EVERY, now, null, GenericPlans.NONE, new SourceShelf(), shelf);
    }
}
