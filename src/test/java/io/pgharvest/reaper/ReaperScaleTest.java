package io.pgharvest.reaper;

import io.pgharvest.kind.TestEndpoints;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hundreds of sources on one server, added while the engine runs: each gets its reaper, connects
 * and delivers. The number of sources is {@code -Dpgharvest.scale.sources} (default 300). The
 * platform thread count at scale is a benchmark figure (docs/performance.md), not asserted here.
 */
class ReaperScaleTest {

    private static final int SOURCES = Integer.getInteger("pgharvest.scale.sources", 300);

    @Test
    void hundredsOfSourcesAddedAtRunTimeAllConnectAndDeliver(@TempDir Path dir) throws Exception {
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
                    Duration.ofMinutes(5), Duration.ofSeconds(10), false, 2, Duration.ofMinutes(2));
            var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                    TestEndpoints.of(ReaperTestKit.sessions())));
            service.start();
            try {
                addSources(store, pg, 0, 10);
                awaitConnected(service, 10);
                addSources(store, pg, 10, SOURCES);
                awaitConnected(service, SOURCES);

                assertThat(service.reaperCount()).isEqualTo(SOURCES);
                Awaitility.await("every source delivered").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> publisher.all().stream().filter(m -> m.metric().equals("activity"))
                                .map(m -> m.source()).distinct().count(), reporting -> reporting == SOURCES);
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

    private static void awaitConnected(ReaperService service, int count) {
        Awaitility.await(count + " sources connected").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> IntStream.range(0, count).filter(i -> service.status("scale%04d".formatted(i))
                        .map(SourceRuntimeStatus::connected).orElse(false)).count(), connected -> connected == count);
    }
}
