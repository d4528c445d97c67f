package io.pgharvest.sink.postgres;

import io.pgharvest.sink.dispatch.ConfiguredSink;
import io.pgharvest.sink.delivery.DeliverySettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * A metric whose storage name is taken by a plain table of the storage database is isolated:
 * the other metrics keep flowing, the conflict is shown with the table's name, and the metric's
 * measurements are kept and delivered once the table is out of the way.
 */
class TableConflictTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final SinkPoolThreads THREADS = new SinkPoolThreads();

    @TempDir
    Path dataDir;

    @AfterAll
    static void closeThreads() {
        THREADS.close();
    }

    @Test
    void aCollidingTableParksOnlyItsMetricUntilItIsResolved() throws Exception {
        pg.createDatabase("conflict_storage");
        pg.execute("conflict_storage", "create table if not exists public.colliding (id int primary key, note text)");
        var delivery = new DeliverySettings(50, Duration.ofMillis(50), 1000, DataSize.ofMegabytes(64).toBytes(),
                Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(5));
        Sink sink = PostgresSink.create("pgharvest.sinks[0]", "storage",
                PostgresSinkProperties.of(pg.connStr("conflict_storage")), THREADS, Clock.systemUTC());
        SinkDispatcher dispatcher = SinkDispatcher.open(List.of(new ConfiguredSink("postgres", null, sink, delivery)),
                dataDir.resolve("spill"), new SimpleMeterRegistry(), Clock.systemUTC());
        dispatcher.start();
        try {
            for (int seq = 1; seq <= 20; seq++) {
                dispatcher.publish(List.of(measurement("colliding", seq), measurement("flowing", seq)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> count("flowing") == 20);
            await().atMost(Duration.ofSeconds(10)).until(() -> dispatcher.statuses().getFirst().parked() == 20);
            SinkStatus status = dispatcher.statuses().getFirst();
            assertThat(status.up()).isTrue();
            assertThat(status.conflicts()).containsOnlyKeys("colliding");
            assertThat(status.conflicts().get("colliding")).contains("colliding");
            assertThat(status.dropped()).isZero();

            pg.execute("conflict_storage", "drop table public.colliding");
            // Deliveries of the flowing metric drive the retries of parked ones.
            for (int seq = 21; seq <= 200 && count("colliding") < 20; seq++) {
                dispatcher.publish(List.of(measurement("flowing", seq)));
                Thread.sleep(50);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> count("colliding") == 20);
            SinkStatus resolved = dispatcher.statuses().getFirst();
            assertThat(resolved.conflicts()).isEmpty();
            assertThat(resolved.parked()).isZero();
            assertThat(resolved.dropped()).isZero();
        } finally {
            dispatcher.stop();
        }
    }

    private static Measurement measurement(String metric, long seq) {
        return new Measurement("src", metric, Instant.now(), List.of(new Measurement.Row(Map.of("seq", seq), null)),
                Map.of());
    }

    private static long count(String table) {
        try (Connection c = pg.connect("conflict_storage"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from public." + table + " where data ? 'seq'")) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return -1;
        }
    }
}
