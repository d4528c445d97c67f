package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.Source;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.nativemetric.ServerLocality;
import io.pgharvest.reaper.ReaperProperties;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * query_stats on an instance of four databases, each a source of its own, as a pg_monitor role: the
 * engine reads pg_stat_statements once per instance and interval (the server's own count of the
 * monitoring role's statistics reads), and every database gets its own entries from that read,
 * also the one without the extension; the monitoring role's own statements reach neither
 * query_stats nor query_texts. query_texts is read once per instance too, and every database, the
 * one without the extension included, gets each new text once.
 */
class QueryStatsInstanceReadTest {

    private static final String MONITOR = "qi_instance_monitor";
    /** Databases with the extension, and one without it (its entries are still in the instance's view). */
    private static final List<String> DATABASES = List.of("qi_inst_a", "qi_inst_b", "qi_inst_c", "qi_inst_bare");
    /** The same statement in every database, run a different number of times in each. */
    private static final String PROBE = "select ?::int + 7 as instance_probe";
    /** Run once in every database, for query_texts. */
    private static final String TEXT_PROBE = "select ?::int * 3 as instance_text_probe";
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements",
                "pg_stat_statements.track_utility", "off"));
        pg.execute("postgres", "create role " + MONITOR + " login in role pg_monitor");
        // The test's own look-ups run here, in no source's database.
        pg.execute("postgres", "create extension pg_stat_statements");
        for (String database : DATABASES) {
            pg.createDatabase(database);
            if (!database.endsWith("bare")) {
                pg.execute(database, "create extension pg_stat_statements");
            }
        }
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void oneReadPerInstanceGivesEveryDatabaseItsOwnEntries(@TempDir Path dir) throws Exception {
        var publisher = new RecordingPublisher();
        ReaperService service = start(dir, publisher);
        try {
            // Every database past its baseline: a delivered query_stats measurement after the first.
            for (String database : DATABASES) {
                publisher.await(m -> m.source().equals(database) && m.metric().equals("query_stats"), 3,
                        Duration.ofSeconds(60));
            }
            for (int i = 0; i < DATABASES.size(); i++) {
                runProbe(DATABASES.get(i), 3 + 2 * i);
            }
            String queryId = pg.queryString("postgres", "select distinct queryid::text from pg_stat_statements"
                    + " where query = 'select $1::int + $2 as instance_probe'");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (int i = 0; i < DATABASES.size(); i++) {
                    assertThat(calls(publisher.all(), DATABASES.get(i), queryId)).as(DATABASES.get(i))
                            .isEqualTo(3 + 2 * i);
                }
            });
            // Reads and collections from here on, once every source has joined the instance.
            long readsBefore = statisticsReads("join pg_catalog.pg_database d on d.oid = s.dbid");
            long perDatabaseBefore = statisticsReads("d.datname = current_database()");
            int collectionsBefore = publisher.all().stream().filter(m -> m.metric().equals("query_stats"))
                    .toList().size();
            publisher.await(m -> m.metric().equals("query_stats"), collectionsBefore + 24, Duration.ofSeconds(60));
            service.stop();
            long reads = statisticsReads("join pg_catalog.pg_database d on d.oid = s.dbid") - readsBefore;
            long perDatabase = statisticsReads("d.datname = current_database()") - perDatabaseBefore;
            int collections = publisher.all().stream().filter(m -> m.metric().equals("query_stats")).toList().size()
                    - collectionsBefore;
            assertThat(perDatabase).as("reads of one database's entries").isZero();
            assertThat(reads).as("instance-wide reads for %d collections on 4 databases", collections)
                    .isPositive().isLessThanOrEqualTo(collections / 3 + 1);

            List<Measurement> stats = publisher.all().stream().filter(m -> m.metric().equals("query_stats")).toList();
            assertThat(stats).allSatisfy(m -> assertThat(m.rows()).allSatisfy(row ->
                    assertThat(row.tags().get("dbname")).isEqualTo(m.source())));
            assertThat(stats).flatMap(Measurement::rows).noneMatch(row -> MONITOR.equals(row.tags().get("user")))
                    .anyMatch(row -> "postgres".equals(row.tags().get("user")));
            List<Object> texts = publisher.all().stream().filter(m -> m.metric().equals("query_texts"))
                    .flatMap(m -> m.rows().stream()).map(row -> row.values().get("query")).toList();
            assertThat(texts).contains("select $1::int + $2 as instance_probe")
                    .noneMatch(text -> text.toString().contains("pg_stat_statements"));
        } finally {
            service.stop();
        }
    }

    @Test
    void textsAreReadOncePerInstanceForEveryDatabaseAndDeliveredOnce(@TempDir Path dir) throws Exception {
        var publisher = new RecordingPublisher();
        ReaperService service = start(dir, publisher);
        try {
            for (String database : DATABASES) {
                publisher.await(m -> m.source().equals(database) && m.metric().equals("query_texts"), 2,
                        Duration.ofSeconds(60));
            }
            long readsBefore = textsReads("k(datname");
            long perDatabaseBefore = textsReads("current_database()");
            int collectionsBefore = collections(publisher, "query_texts");
            for (String database : DATABASES) {
                try (Connection work = pg.connect(database);
                        PreparedStatement st = work.prepareStatement(TEXT_PROBE)) {
                    st.setInt(1, 1);
                    st.executeQuery().close();
                }
            }
            String text = "select $1::int * $2 as instance_text_probe";
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (String database : DATABASES) {
                    assertThat(texts(publisher.all(), database)).as(database).contains(text);
                }
            });
            publisher.await(m -> m.metric().equals("query_texts"), collectionsBefore + 24, Duration.ofSeconds(60));
            service.stop();
            long reads = textsReads("k(datname") - readsBefore;
            long perDatabase = textsReads("current_database()") - perDatabaseBefore;
            int collections = collections(publisher, "query_texts") - collectionsBefore;
            // A source whose registration raced with a read reads its own database once; never every tick.
            assertThat(perDatabase).as("texts reads of one database for %d collections", collections)
                    .isLessThanOrEqualTo(collections / 4);
            assertThat(reads).as("instance-wide texts reads for %d collections on 4 databases", collections)
                    .isPositive().isLessThanOrEqualTo(collections / 3 + 1);
            for (String database : DATABASES) {
                // Delivered once, also to the database without the extension; never the monitor's own reads.
                assertThat(texts(publisher.all(), database)).as(database)
                        .filteredOn(text::equals).hasSize(1);
                assertThat(texts(publisher.all(), database)).as(database)
                        .noneMatch(t -> t.contains("pg_stat_statements"));
            }
        } finally {
            service.stop();
        }
    }

    private static List<String> texts(List<Measurement> measurements, String database) {
        return measurements.stream().filter(m -> m.metric().equals("query_texts") && m.source().equals(database))
                .flatMap(m -> m.rows().stream()).peek(r -> assertThat(r.tags().get("dbname")).isEqualTo(database))
                .map(r -> (String) r.values().get("query")).toList();
    }

    private static int collections(RecordingPublisher publisher, String metric) {
        return (int) publisher.all().stream().filter(m -> m.metric().equals(metric)).count();
    }

    /**
     * Calls of the monitoring role's texts reads (the statements with {@code text_hash}; the
     * {@code true} of {@code pg_stat_statements(true)} is normalized to a parameter) whose text
     * contains {@code marker}, over all databases.
     */
    private static long textsReads(String marker) {
        String calls = pg.queryString("postgres", "select coalesce(sum(s.calls), 0)::text from pg_stat_statements s"
                + " join pg_roles r on r.oid = s.userid where r.rolname = '" + MONITOR + "'"
                + " and strpos(s.query, 'text_hash') > 0 and strpos(s.query, '" + marker + "') > 0");
        return Long.parseLong(calls);
    }

    private static void runProbe(String database, int times) throws Exception {
        try (Connection work = pg.connect(database); PreparedStatement st = work.prepareStatement(PROBE)) {
            for (int i = 0; i < times; i++) {
                st.setInt(1, i);
                st.executeQuery().close();
            }
        }
    }

    /** Calls of the monitoring role's statistics reads whose text contains {@code marker}, over all databases. */
    private static long statisticsReads(String marker) {
        String calls = pg.queryString("postgres", "select coalesce(sum(s.calls), 0)::text from pg_stat_statements s"
                + " join pg_roles r on r.oid = s.userid where r.rolname = '" + MONITOR + "'"
                + " and strpos(s.query, 'pg_stat_statements_info') > 0 and strpos(s.query, '" + marker + "') > 0");
        return Long.parseLong(calls);
    }

    private static long calls(List<Measurement> measurements, String database, String queryId) {
        return measurements.stream().filter(m -> m.metric().equals("query_stats") && m.source().equals(database))
                .flatMap(m -> m.rows().stream()).filter(r -> queryId.equals(r.tags().get("queryid")))
                .mapToLong(r -> (Long) r.values().get("calls")).sum();
    }

    private static ReaperService start(Path dir, RecordingPublisher publisher) {
        ConfigStore store = TestStores.inDirectory(dir);
        var natives = new NativeMetricRegistry(List.of(new QueryStats(new QueryInsightsProperties(50, false)),
                new QueryTexts(new QueryInsightsProperties(50, false))), ServerLocality.system());
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var sessions = new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1)));
        var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                io.pgharvest.kind.TestEndpoints.of(sessions))
                .withNatives(natives));
        service.start();
        for (String database : DATABASES) {
            String connStr = pg.connStr(database).replace("postgresql://postgres@", "postgresql://" + MONITOR + "@");
            store.putSource(new Source(database, connStr, null, null, true, null,
                    Map.of("query_stats", 1, "query_texts", 1), null, null, Map.of(), false, null, null));
        }
        return service;
    }
}
