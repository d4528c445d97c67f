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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * The storage database goes away while measurements keep coming (one every 100 ms from a
 * producer standing in for the reapers) and comes back: every measurement arrives exactly once.
 * The outage lasts {@code -Dpgharvest.test.outage-seconds} (default 15; the scenario
 * is 60).
 */
class PostgresSinkOutageTest {

    private static final Duration OUTAGE =
            Duration.ofSeconds(Long.getLong("pgharvest.test.outage-seconds", 15));
    private static final SinkPoolThreads THREADS = new SinkPoolThreads();
    private static TestPostgres pg;

    @TempDir
    Path dataDir;

    private Producer producer;
    private SinkDispatcher dispatcher;

    @BeforeAll
    static void privateServer() {
        pg = TestPostgres.start(Map.of());
    }

    @AfterAll
    static void closeServer() {
        THREADS.close();
        if (pg != null) {
            pg.close();
        }
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        if (producer != null) {
            producer.stop();
        }
        if (dispatcher != null) {
            dispatcher.stop();
        }
        if (!pg.isRunning()) {
            pg.start();
        }
    }

    @Test
    void everyMeasurementProducedDuringAnOutageArrivesExactlyOnce() throws Exception {
        pg.createDatabase("outage");
        // A small memory queue: the outage is carried by the spill log on disk.
        dispatcher = open("outage", 20);
        producer = new Producer(dispatcher);
        await().atMost(Duration.ofSeconds(30)).until(() -> stored("outage") >= 10);

        pg.stop();
        long producedBeforeOutage = producer.produced();
        producer.awaitProduced(producedBeforeOutage + OUTAGE.toMillis() / Producer.PERIOD_MS);
        SinkStatus during = dispatcher.statuses().getFirst();
        assertThat(during.up()).isFalse();
        assertThat(during.spilled()).isPositive();
        pg.start();
        producer.awaitProduced(producer.produced() + 20);
        long produced = producer.stop();

        await().atMost(Duration.ofSeconds(60)).until(() -> stored("outage") >= produced);
        assertExactlyOnce("outage", produced);
        SinkStatus after = dispatcher.statuses().getFirst();
        assertThat(after.up()).isTrue();
        assertThat(after.spilled()).isZero();
        assertThat(after.dropped()).isZero();
        assertThat(after.written()).isEqualTo(produced);
    }

    @Test
    void measurementsKeptWhilePgharvestRestartsDuringAnOutageArriveAfterwards() throws Exception {
        pg.createDatabase("restart");
        // A large memory queue: what waits at shutdown is in memory and must be persisted then.
        dispatcher = open("restart", 10_000);
        producer = new Producer(dispatcher);
        await().atMost(Duration.ofSeconds(30)).until(() -> stored("restart") >= 10);

        pg.stop();
        producer.awaitProduced(producer.produced() + 30);
        long produced = producer.stop();
        producer = null;
        dispatcher.stop();
        dispatcher = null;
        pg.start();

        dispatcher = open("restart", 10_000);
        await().atMost(Duration.ofSeconds(60)).until(() -> stored("restart") >= produced);
        assertExactlyOnce("restart", produced);
    }

    private SinkDispatcher open(String database, int memoryQueue) {
        var delivery = new DeliverySettings(50, Duration.ofMillis(200), memoryQueue, DataSize.ofMegabytes(64).toBytes(),
                Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(5));
        Sink sink = PostgresSink.create("pgharvest.sinks[0]", "storage", PostgresSinkProperties.of(pg.connStr(database)),
                THREADS, Clock.systemUTC());
        var opened = SinkDispatcher.open(List.of(new ConfiguredSink("postgres", null, sink, delivery)),
                dataDir.resolve("spill"), new SimpleMeterRegistry(), Clock.systemUTC());
        opened.start();
        return opened;
    }

    private long stored(String database) {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM public.outage_probe")) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return -1; // database down, or table not created yet
        }
    }

    private void assertExactlyOnce(String database, long produced) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT (data->>'seq')::bigint), "
                        + "min((data->>'seq')::bigint), max((data->>'seq')::bigint) FROM public.outage_probe")) {
            rs.next();
            assertThat(rs.getLong(1)).as("rows").isEqualTo(produced);
            assertThat(rs.getLong(2)).as("distinct sequence numbers").isEqualTo(produced);
            assertThat(rs.getLong(3)).isEqualTo(1);
            assertThat(rs.getLong(4)).isEqualTo(produced);
        }
    }

    /** Stands in for the reapers: one measurement every 100 ms, numbered from 1. */
    private static final class Producer {
        static final long PERIOD_MS = 100;

        private final AtomicLong seq = new AtomicLong();
        private final CountDownLatch stop = new CountDownLatch(1);
        private final Thread thread;

        Producer(SinkDispatcher dispatcher) {
            thread = Thread.ofVirtual().name("test-producer").start(() -> {
                try {
                    do {
                        long n = seq.get() + 1;
                        dispatcher.publish(List.of(new Measurement("src", "outage_probe", Instant.now(),
                                List.of(new Measurement.Row(Map.of("seq", n), null)), Map.of("tick", "x"))));
                        seq.set(n);
                    } while (!stop.await(PERIOD_MS, TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        long produced() {
            return seq.get();
        }

        void awaitProduced(long count) {
            await().atMost(Duration.ofMillis(count * PERIOD_MS * 3 + 30_000)).until(() -> seq.get() >= count);
        }

        /** Stops producing; returns how many were produced. */
        long stop() throws InterruptedException {
            stop.countDown();
            thread.join();
            return seq.get();
        }
    }
}
