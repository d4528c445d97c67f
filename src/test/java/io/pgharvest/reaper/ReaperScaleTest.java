package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hundreds of sources on one server: the platform thread count does not grow with the number
 * of sources (reapers are virtual threads, sessions are plain connections without pools).
 * The number of sources is {@code -Dpgharvest.scale.sources} (default 300).
 */
class ReaperScaleTest {

    private static final int SOURCES = Integer.getInteger("pgharvest.scale.sources", 300);

    @Test
    void platformThreadsStayFlatFromTenToHundredsOfSources(@TempDir Path dir) throws Exception {
        try (TestPostgres pg = TestPostgres.start(Map.of("max_connections", Integer.toString(SOURCES + 30)))) {
            pg.createDatabase("scale_db");
            ConfigStore store = TestStores.inDirectory(dir);
            store.putMetric(metric("activity", "select count(*) as n from pg_stat_activity"));
            store.putMetric(metric("db", "select numbackends, xact_commit from pg_stat_database"
                    + " where datname = current_database()"));
            store.putMetric(metric("settings", "select count(*) as n from pg_settings"));
            var publisher = new RecordingPublisher();
            var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                    Duration.ofMinutes(1), Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofMinutes(1),
                    Duration.ofMinutes(5), Duration.ofSeconds(10));
            var service = new ReaperService(store, publisher, new SimpleMeterRegistry(), properties,
                    ReaperTestKit.sessions(), Clock.systemUTC());
            service.start();
            try {
                addSources(store, pg, 0, 10);
                awaitConnected(service, 10);
                int withTen = platformThreads();

                addSources(store, pg, 10, SOURCES);
                awaitConnected(service, SOURCES);
                Thread.sleep(6_000); // several ticks of every source
                int withMany = platformThreads();
                int peak = ManagementFactory.getThreadMXBean().getPeakThreadCount();
                System.out.printf("[scale] platform threads: %d with 10 sources, %d with %d sources (JVM peak %d)%n",
                        withTen, withMany, SOURCES, peak);

                assertThat(service.reaperCount()).isEqualTo(SOURCES);
                assertThat(withMany - withTen).isLessThanOrEqualTo(4);
                long sourcesReporting = publisher.all().stream().filter(m -> m.metric().equals("activity"))
                        .map(m -> m.source()).distinct().count();
                assertThat(sourcesReporting).isEqualTo(SOURCES);
            } finally {
                service.stop();
            }
        }
    }

    private static void addSources(ConfigStore store, TestPostgres pg, int from, int to) {
        for (int i = from; i < to; i++) {
            store.putSource(source("scale%04d".formatted(i), pg.connStr("scale_db"),
                    Map.of("activity", 2, "db", 2, "settings", 4)));
        }
    }

    private static void awaitConnected(ReaperService service, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            long connected = java.util.stream.IntStream.range(0, count)
                    .filter(i -> service.status("scale%04d".formatted(i)).map(SourceRuntimeStatus::connected).orElse(false))
                    .count();
            if (connected == count) {
                return;
            }
            assertThat(System.nanoTime()).as(connected + " of " + count + " sources connected").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static int platformThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }
}
