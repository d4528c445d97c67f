package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.store.ConfigStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * 2,000 blocking queries park on one endpoint and all wake on one change: Tomcat serves them on
 * virtual threads and they park on the table's one notifier. The platform thread count is
 * printed ({@link ThreadMXBean#getThreadCount()} counts platform threads only); limits on it
 * belong in the benchmark.
 */
class ManyWaitersTest extends ApiTestBase {

    private static final int WAITERS = 2_000;
    /** "A handful": carrier threads the virtual-thread scheduler may add, a client selector thread. */

    @Autowired
    ConfigStore store;

    @Test
    void twoThousandParkedWaitersAllWakeOnOneChange() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ApiClient api = api();
        long index = api.get("/api/v1/sources").index();
        api.getAsync("/api/v1/sources").get(10, TimeUnit.SECONDS);
        int before = threads.getThreadCount();

        List<CompletableFuture<ApiClient.Response>> waiters = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            waiters.add(api.getAsync("/api/v1/sources?index=" + index + "&wait=2m"));
        }
        Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                .until(() -> BlockingQueryTest.parkedWaiters(store) >= WAITERS);
        int parked = threads.getThreadCount();
        System.out.printf("Platform threads: %d before, %d with %d parked waiters (peak %d)%n",
                before, parked, WAITERS, threads.getPeakThreadCount());

        var change = api.post("/api/v1/sources", Map.of("name", "many-waiters", "connStr", "postgresql://db/x"));
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(change.status()).isEqualTo(201);
        for (CompletableFuture<ApiClient.Response> waiter : waiters) {
            ApiClient.Response response = waiter.join();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.index()).isGreaterThan(index);
        }
        assertThat(BlockingQueryTest.parkedWaiters(store)).isZero();
    }
}
