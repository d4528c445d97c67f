package io.pgharvest.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A new sink under start-up load: the tables of many selected metrics are created by the
 * table-creation thread while the writer's first batches need the same tables, and maintenance
 * runs early. Every batch must be written at its first try, and nobody may time out on a lock or
 * on a pool connection (issue 23: nothing written during a 60 s warm-up at 300 sources).
 */
class SinkStartContentionTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final SinkPoolThreads THREADS = new SinkPoolThreads();
    private static final int METRICS = 120;
    private static final int SOURCES = 5;
    private static final int ROUNDS = 4;
    private static int databases;

    private final Logger sinkLogs = (Logger) LoggerFactory.getLogger("io.pgharvest.sink.postgres");
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private PostgresSink sink;

    @BeforeEach
    void captureLogs() {
        logs.start();
        sinkLogs.addAppender(logs);
    }

    @AfterEach
    void close() {
        if (sink != null) {
            sink.close();
        }
        sinkLogs.detachAppender(logs);
    }

    @AfterAll
    static void threads() {
        THREADS.close();
    }

    @Test
    void manyNewTablesAtOnceAreAllWrittenAtTheFirstTryWithoutLockOrPoolTimeouts() throws Exception {
        String database = "sink_start_" + (++databases) + "_" + Long.toHexString(System.nanoTime());
        PG.createDatabase(database);
        var names = new TreeSet<String>();
        for (int i = 0; i < METRICS; i++) {
            names.add("metric_%03d".formatted(i));
        }
        MetricCatalog selecting = new MetricCatalog() {
            @Override
            public Optional<io.pgharvest.model.MetricDefinition> byStorageName(String storageName) {
                return Optional.empty();
            }

            @Override
            public Set<String> selectedStorageNames() {
                return names;
            }

            @Override
            public long awaitSelectionChange(long seen, Duration timeout) throws InterruptedException {
                Thread.sleep(timeout);
                return seen;
            }
        };
        sink = PostgresSink.create("pgharvest.sinks[0]", "pg", settings(PG.connStr(database)), THREADS, selecting,
                Clock.systemUTC());

        // The writer meets the tables in the opposite order of the table-creation thread, with rows of
        // yesterday too (more partitions to create), round after round as ticks arrive.
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        int written = 0;
        for (int round = 0; round < ROUNDS; round++) {
            var batch = new ArrayList<Measurement>();
            for (String metric : names.descendingSet()) {
                for (int s = 0; s < SOURCES; s++) {
                    Instant time = (s % 2 == 0 ? now : now.minus(Duration.ofDays(1))).plusMillis(round);
                    batch.add(new Measurement("src-" + s, metric, time,
                            List.of(new Measurement.Row(Map.of("v", round), null)), Map.of()));
                }
            }
            sink.write(batch); // throws if a lock or a pool connection timed out
            written += batch.size();
            Thread.sleep(300);
        }

        long stored = 0;
        try (Connection c = PG.connect(database); Statement st = c.createStatement()) {
            for (String metric : names) {
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM public." + metric)) {
                    rs.next();
                    stored += rs.getLong(1);
                }
            }
        }
        assertThat(stored).isEqualTo(written);
        assertThat(logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage)).isEmpty();
    }

    @Test
    void tableCreationLeavesATableTheWriterIsPreparingToItInsteadOfWaitingForIt() throws Exception {
        String database = "sink_start_" + (++databases) + "_" + Long.toHexString(System.nanoTime());
        PG.createDatabase(database);
        sink = PostgresSink.create("pgharvest.sinks[0]", "pg", settings(PG.connStr(database)), THREADS,
                MetricCatalog.empty(), Clock.systemUTC());
        sink.ensureSchema();
        var dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(PG.jdbcUrl(database));
        var creation = new SelectedTables("test", dataSource, sink::ensureSchema,
                new MetricTables(new PartitionLayout(Duration.ofDays(1)), 2), MetricCatalog.empty(), Clock.systemUTC());

        try (Connection writer = PG.connect(database); Statement w = writer.createStatement()) {
            writer.setAutoCommit(false);
            // The writer's batch holds the metric's lock, exactly as MetricTables takes it, until it commits.
            w.execute("SELECT pg_advisory_xact_lock(" + 0x70676876 + ", hashtext('busy_metric'))");
            var pass = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return creation.createMissing(Set.of("busy_metric", "free_metric"));
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // Done while the writer's transaction is still open: it did not queue behind the writer.
            assertThat(pass.get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(tableExists(database, "free_metric")).isTrue();
            assertThat(tableExists(database, "busy_metric")).isFalse();
            writer.commit();
        }
        assertThat(creation.createMissing(Set.of("busy_metric", "free_metric"))).isEqualTo(1);
        assertThat(tableExists(database, "busy_metric")).isTrue();
    }

    private static boolean tableExists(String database, String table) throws Exception {
        try (Connection c = PG.connect(database); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT to_regclass('public." + table + "') IS NOT NULL")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private static PostgresSinkProperties settings(String url) {
        // Maintenance every second: its first run falls into the start-up burst.
        return new PostgresSinkProperties(url, null, null, null, null, null, Duration.ofSeconds(1));
    }
}
