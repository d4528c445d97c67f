package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the application answers the blocking queries parked on it: they do not hold the web
 * server's graceful shutdown until their wait (here 5 minutes) runs out. Before, a parked query
 * kept waiting, the graceful shutdown gave up after its phase timeout (30 s) and closed the
 * connection: the client got no answer at all.
 */
class ShutdownReleasesWaitersTest {

    private static final int PARKED_PER_ENDPOINT = 20;

    @TempDir
    Path dataDir;

    @Test
    void parkedBlockingQueriesAreAnsweredWhenTheApplicationCloses() throws Exception {
        Files.createDirectories(dataDir);
        RunningApp app = RunningApp.start(dataDir);
        ApiClient api = app.api();
        ParkedRequests parked = app.bean(ParkedRequests.class);
        long sourcesIndex = api.get("/api/v1/sources").index();
        long statusIndex = api.get("/api/v1/status").index();

        List<CompletableFuture<ApiClient.Response>> sources = new ArrayList<>();
        List<CompletableFuture<ApiClient.Response>> statuses = new ArrayList<>();
        for (int i = 0; i < PARKED_PER_ENDPOINT; i++) {
            sources.add(api.getAsync("/api/v1/sources?index=" + sourcesIndex + "&wait=5m"));
            statuses.add(api.getAsync("/api/v1/status?index=" + statusIndex + "&wait=5m"));
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> parked.parkedCount() >= 2 * PARKED_PER_ENDPOINT);

        CompletableFuture<Void> closing = CompletableFuture.runAsync(app::close);

        // Well under the 5-minute wait; the graceful shutdown's own limit (30 s) would end in a
        // closed connection, which getAsync reports as an exception, not as a response.
        for (CompletableFuture<ApiClient.Response> waiter : sources) {
            ApiClient.Response response = waiter.get(60, TimeUnit.SECONDS);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.index()).isEqualTo(sourcesIndex);
        }
        for (CompletableFuture<ApiClient.Response> waiter : statuses) {
            ApiClient.Response response = waiter.get(60, TimeUnit.SECONDS);
            assertThat(response.status()).as(response.body()).isEqualTo(503);
            assertThat(response.body()).contains("shutting down");
        }
        closing.get(60, TimeUnit.SECONDS);
        assertThat(parked.parkedCount()).isZero();
    }
}
