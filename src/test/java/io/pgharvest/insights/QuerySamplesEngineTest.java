package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.Source;
import io.pgharvest.reaper.ReaperProperties;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * query_samples end to end on a real server: a session in pg_sleep and a session waiting for a
 * lock are sampled with the query ID pg_stat_statements gives their statements, their wait event
 * and, for the lock wait, the pid of the session holding the lock; no statement text is sampled.
 */
class QuerySamplesEngineTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "insights_samples";

    @Test
    void aSleepAndALockWaitAreSampledWithTheirQueryIdWaitEventAndBlocker(@TempDir Path dir) throws Exception {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
        pg.execute(DB, "create table if not exists locked (id int)");
        pg.execute(DB, "insert into locked select 1 where not exists (select from locked)");
        var publisher = new RecordingPublisher();
        ReaperService service = start(dir, publisher);
        try (Connection holder = pg.connect(DB); Connection waiter = pg.connect(DB);
                Connection sleeper = pg.connect(DB)) {
            int holderPid = pid(holder);
            int waiterPid = pid(waiter);
            int sleeperPid = pid(sleeper);
            holder.setAutoCommit(false);
            try (Statement st = holder.createStatement()) {
                // A row lock is waited for while the statement executes, after the server computed its
                // query ID; a lock taken while a statement is parsed (LOCK TABLE held elsewhere, DDL)
                // is waited for before, and such a sample has no query ID.
                st.executeQuery("select id from locked where id = 1 for update").close();
            }
            // A thread each: the common pool may have one thread on a small machine.
            var threads = Executors.newVirtualThreadPerTaskExecutor();
            Future<?> waiting = threads.submit(() -> run(waiter,
                    "select id as samples_lock_probe from locked where id = 1 for update")); // the holder's query ID
            Future<?> sleeping = threads.submit(() -> run(sleeper, "select pg_sleep(4) as samples_sleep_probe"));

            List<Measurement> sampled = publisher.await(m -> m.metric().equals("query_samples")
                    && hasPid(m, waiterPid, "Lock") && hasPid(m, sleeperPid, "Timeout"), 1, Duration.ofSeconds(20));
            holder.rollback();
            waiting.get(20, TimeUnit.SECONDS);
            sleeping.get(20, TimeUnit.SECONDS);

            Measurement.Row lockWait = row(sampled.getLast(), waiterPid);
            assertThat(lockWait.values()).containsEntry("state", "active")
                    .containsEntry("blocking_pids", Integer.toString(holderPid)).containsEntry("blocked_by", 1L)
                    .containsEntry("backend_type", "client backend").containsEntry("user_name", "postgres");
            assertThat(lockWait.tags()).containsEntry("dbname", DB).containsEntry("wait_event_type", "Lock")
                    .containsEntry("wait_event", "transactionid")
                    .containsEntry("queryid", queryId("%from locked where id = $1 for update"));
            Measurement.Row sleep = row(sampled.getLast(), sleeperPid);
            assertThat(sleep.values()).containsEntry("blocking_pids", "")
                    .containsEntry("blocked_by", 0L);
            assertThat((Double) sleep.values().get("duration_s")).isPositive();
            assertThat(sleep.tags()).containsEntry("queryid", queryId("%as samples_sleep_probe"))
                    .containsEntry("wait_event_type", "Timeout").containsEntry("wait_event", "PgSleep");
            assertThat(publisher.all()).filteredOn(m -> m.metric().equals("query_samples"))
                    .flatMap(Measurement::rows).noneSatisfy(r -> assertThat(r.values().toString()).contains("probe"));
        } finally {
            service.stop();
        }
    }

    private static boolean hasPid(Measurement m, int pid, String waitEventType) {
        return m.rows().stream().anyMatch(r -> Integer.toString(pid).equals(r.tags().get("pid"))
                && waitEventType.equals(r.tags().get("wait_event_type")));
    }

    private static Measurement.Row row(Measurement m, int pid) {
        return m.rows().stream().filter(r -> Integer.toString(pid).equals(r.tags().get("pid"))).findFirst()
                .orElseThrow();
    }

    private static String queryId(String pattern) {
        return pg.queryString(DB, "select queryid::text from pg_stat_statements where query like '" + pattern + "'");
    }

    private static int pid(Connection connection) throws Exception {
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void run(Connection connection, String sql) {
        try (Statement st = connection.createStatement()) {
            st.executeQuery(sql).close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ReaperService start(Path dir, RecordingPublisher publisher) {
        ConfigStore store = TestStores.inDirectory(dir);
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var sessions = new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1)));
        var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                io.pgharvest.kind.TestEndpoints.of(sessions)));
        service.start();
        store.putSource(new Source("samples", pg.connStr(DB), null, null, true, null, Map.of("query_samples", 1),
                null, null, Map.of(), false, null, null));
        return service;
    }
}
