package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.kind.postgres.ConnectionTester;
import io.pgharvest.kind.postgres.PostgresEndpoint;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What active_sessions costs the monitored server (docs/query-insights.md, "active_sessions"):
 * samples a server with 50 client sessions (30 idle, 10 idle in a transaction, 10 running a 0.5 s
 * statement over and over) through a real session every 1 s and every 10 s for a minute each, and
 * prints, as {@code [active-sessions-cost]} lines, the sampler's statements per minute, their
 * execution time from pg_stat_statements, and the sampling backend's CPU time from /proc. A
 * measurement outside the normal build:
 * {@code ./mvnw -B -o -Dtest=ActiveSessionsCostBenchmark -Dtest.excludedGroups= -Dsurefire.failIfNoSpecifiedTests=false test}.
 */
@Tag("benchmark")
class ActiveSessionsCostBenchmark {

    private static final String DB = "sampler_cost";
    private static final Duration RUN = Duration.ofSeconds(60);

    @Test
    void samplerCostAtOneAndTenSeconds() throws Exception {
        try (TestPostgres server = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements"))) {
            server.createDatabase(DB);
            server.execute(DB, "create extension pg_stat_statements");
            server.execute("postgres", "create role sampler_monitor login in role pg_monitor");
            var running = new AtomicBoolean(true);
            var sessions = new ArrayList<Connection>();
            var busy = new ArrayList<Thread>();
            try {
                for (int i = 0; i < 30; i++) {
                    sessions.add(server.connect(DB));
                }
                for (int i = 0; i < 10; i++) {
                    Connection c = server.connect(DB);
                    sessions.add(c);
                    try (Statement st = c.createStatement()) {
                        st.execute("begin");
                        st.execute("select 1");
                    }
                }
                for (int i = 0; i < 10; i++) {
                    busy.add(Thread.ofVirtual().start(() -> {
                        try (Connection c = server.connect(DB); Statement st = c.createStatement()) {
                            while (running.get()) {
                                st.execute("select pg_sleep(0.5)");
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                for (Duration every : List.of(Duration.ofSeconds(1), Duration.ofSeconds(10))) {
                    measure(server, every);
                }
            } finally {
                running.set(false);
                for (Thread t : busy) {
                    t.join();
                }
                for (Connection c : sessions) {
                    c.close();
                }
            }
        }
    }

    private static void measure(TestPostgres server, Duration every) throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), true, false));
        try (SourceSession session = new PostgresEndpoint(opener, new ConnectionTester(opener)).open(ConnectionString.parse("postgresql://sampler_monitor@"
                + server.host() + ":" + server.port() + "/" + DB), Instant.now())) {
            int pid = ((Number) session.read("select pg_backend_pid() as pid").getFirst().get("pid")).intValue();
            server.execute(DB, "select pg_stat_statements_reset()");
            var collector = new ActiveSessionsCollector(Duration.ofSeconds(10));
            long cpuBefore = cpuTicks(pid);
            Instant end = Instant.now().plus(RUN);
            int runs = 0;
            long rows = 0;
            while (Instant.now().isBefore(end)) {
                var out = collector.collectByName(new NativeTarget("cost", DB, server.majorVersion(), ":0", true,
                        new QueryPlansCollectorTest.SessionReader(session), every, Instant.now(), null,
                        GenericPlans.NONE, new SourceShelf(), InstanceShelf.NONE), "query_samples");
                runs++;
                rows += out.values().stream().mapToLong(List::size).sum();
                Thread.sleep(every.toMillis());
            }
            long cpuTicks = cpuTicks(pid) - cpuBefore;
            String stats = server.queryString(DB, "select coalesce(sum(calls), 0) || ' calls, '"
                    + " || round(coalesce(sum(total_exec_time), 0)::numeric, 1) || ' ms execution, '"
                    + " || round(coalesce(sum(total_plan_time), 0)::numeric, 1) || ' ms planning'"
                    + " from pg_stat_statements where query like '%pg_stat_activity%' and query not like '%pg_stat_statements%'");
            System.out.printf("[active-sessions-cost] every %ds, 60 s, 50 client sessions: %d samplings (%.0f statements/min),"
                    + " %d rows delivered; pg_stat_statements: %s; sampling backend CPU %d ms (/proc, 10 ms ticks)%n",
                    every.toSeconds(), runs, runs * 60.0 / RUN.toSeconds(), rows, stats, cpuTicks * 10);
            assertThat(runs).isPositive();
        }
    }

    /** utime + stime of a process in clock ticks (fields 14 and 15 of /proc/PID/stat). */
    private static long cpuTicks(int pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
