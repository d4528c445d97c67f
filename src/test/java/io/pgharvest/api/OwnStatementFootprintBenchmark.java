package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What pgharvest costs the pg_stat_statements of the servers it watches: the entries its own
 * statements take, per database, when it collects the {@code full} preset from every database of
 * an instance, and the deallocations (evictions of other statements) that causes. With the
 * monitoring role set to {@code pg_stat_statements.track = none} (docs/query-insights.md) it takes
 * none, whatever the preset, so an application's statements are never evicted by the monitor.
 *
 * <p>Prints its figures ({@code [footprint]} lines) for docs/performance.md. A measurement (about
 * four minutes), outside the normal build: {@code ./mvnw -B -o -Dtest=OwnStatementFootprintBenchmark
 * -Dtest.excludedGroups= test}.
 */
@Tag("benchmark")
class OwnStatementFootprintBenchmark {

    private static final int DATABASES = 20;
    private static final String MONITOR = "footprint_monitor";
    private static final Duration COLLECTION = Duration.ofSeconds(60);
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        // 20 databases against max 500 scale the issue's 300 databases against the default 5,000.
        pg = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements",
                "pg_stat_statements.max", "500", "max_connections", "100"));
        pg.execute("postgres", "create extension pg_stat_statements");
        pg.execute("postgres", "create role " + MONITOR + " login in role pg_monitor");
        for (int i = 0; i < DATABASES; i++) {
            pg.createDatabase(database(i));
        }
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void aMonitoringRoleThatPgStatStatementsDoesNotTrackTakesNoEntriesAndEvictsNothing(@TempDir Path dataDir)
            throws Exception {
        Footprint tracked = collect(dataDir.resolve("tracked"));
        pg.execute("postgres", "alter role " + MONITOR + " set pg_stat_statements.track = 'none'");
        try {
            Footprint untracked = collect(dataDir.resolve("untracked"));

            System.out.printf("[footprint] %d databases, preset full, %d s, pg_stat_statements.max 500:%n",
                    DATABASES, COLLECTION.toSeconds());
            System.out.printf("[footprint] role tracked (default): %s%n", tracked);
            System.out.printf("[footprint] role with pg_stat_statements.track = none: %s%n", untracked);
            assertThat(tracked.entries()).as("the default: pgharvest's own statements take entries")
                    .isGreaterThan(DATABASES);
            assertThat(untracked.entries()).isZero();
            assertThat(untracked.deallocations()).isZero();
        } finally {
            pg.execute("postgres", "alter role " + MONITOR + " reset pg_stat_statements.track");
        }
    }

    /** Collects every database with the full preset for {@link #COLLECTION}, from a reset on. */
    private static Footprint collect(Path dataDir) throws Exception {
        pg.queryString("postgres", "select pg_stat_statements_reset()::text");
        try (RunningApp app = RunningApp.start(dataDir, "--pgharvest.sinks[0].type=jsonfile",
                "--pgharvest.sinks[0].path=" + dataDir.resolve("out.jsonl"))) {
            ApiClient api = app.api();
            for (int i = 0; i < DATABASES; i++) {
                assertThat(api.post("/api/v1/sources", Map.of("name", database(i), "connStr",
                        "postgresql://" + MONITOR + "@" + pg.host() + ":" + pg.port() + "/" + database(i),
                        "preset", "full")).status()).isEqualTo(201);
            }
            Awaitility.await().pollDelay(COLLECTION).atMost(COLLECTION.plusSeconds(5)).until(() -> true);
        }
        printTopStatements();
        return footprint();
    }

    /** Which of pgharvest's statements take entries in most databases. */
    private static void printTopStatements() throws Exception {
        try (Connection c = pg.connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     select count(*) as databases, sum(calls) as calls,
                            regexp_replace(left(query, 90), '\s+', ' ', 'g') as text
                       from pg_stat_statements s join pg_roles r on r.oid = s.userid and r.rolname = '%s'
                      group by 3 order by 1 desc, 2 desc limit 25""".formatted(MONITOR))) {
            while (rs.next()) {
                System.out.printf("[footprint]   %3d dbs %6d calls  %s%n", rs.getLong(1), rs.getLong(2), rs.getString(3));
            }
        }
    }

    private static Footprint footprint() throws Exception {
        try (Connection c = pg.connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     select count(*) as entries,
                            count(distinct s.dbid) as databases,
                            coalesce(max(per_db.n), 0) as most_in_one_database,
                            (select dealloc from pg_stat_statements_info) as deallocations
                       from pg_stat_statements(false) s
                       join pg_roles r on r.oid = s.userid and r.rolname = '%s'
                       left join lateral (select count(*) as n from pg_stat_statements(false) o
                                          where o.dbid = s.dbid and o.userid = s.userid) per_db on true
                     """.formatted(MONITOR))) {
            rs.next();
            return new Footprint(rs.getLong("entries"), rs.getLong("databases"), rs.getLong("most_in_one_database"),
                    rs.getLong("deallocations"));
        }
    }

    private static String database(int i) {
        return "footprint_" + i;
    }

    record Footprint(long entries, long databases, long mostInOneDatabase, long deallocations) {
        @Override
        public String toString() {
            return entries + " entries of the monitoring role in " + databases + " databases (at most "
                    + mostInOneDatabase + " in one), " + deallocations + " deallocations";
        }
    }
}
