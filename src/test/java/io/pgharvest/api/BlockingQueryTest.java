package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.StoreTable;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class BlockingQueryTest extends ApiTestBase {

    /** The reaper service watches the store-wide index with one parked virtual thread. */
    static final int ENGINE_STORE_WATCHERS = 1;

    @Autowired
    ConfigStore store;

    @Autowired
    ReaperService reapers;

    @Test
    void everyListAnswerCarriesTheTableIndex() {
        assertThat(api().get("/api/v1/sources").header(BlockingQuery.INDEX_HEADER)).isNotNull();
        assertThat(api().get("/api/v1/metrics").header(BlockingQuery.INDEX_HEADER)).isNotNull();
        assertThat(api().get("/api/v1/presets").header(BlockingQuery.INDEX_HEADER)).isNotNull();
    }

    /**
     * A parked waiter answers once the change is made, with the new index. How fast is printed
     * (from the writer's answer to the waiter's); latency limits belong in the benchmark.
     */
    @Test
    void aParkedWaiterWakesOnAChangeWithTheNewIndex() throws Exception {
        long index = api().get("/api/v1/sources").index();
        var waiter = api().getAsync("/api/v1/sources?index=" + index + "&wait=30s");
        awaitParkedWaiters(1);

        var created = api().post("/api/v1/sources", Map.of("name", "bq-wake", "connStr", "postgresql://db/x"));
        long changeAnswered = System.nanoTime();
        var woken = waiter.get(10, TimeUnit.SECONDS);
        long wokenAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changeAnswered);

        System.out.printf("Blocking query woke %d ms after the change was answered%n", wokenAfterMillis);
        assertThat(created.status()).isEqualTo(201);
        assertThat(woken.status()).isEqualTo(200);
        assertThat(woken.index()).isGreaterThan(index);
        assertThat(woken.body()).contains("bq-wake");
    }

    @Test
    void anIndexAheadOfTheStoreAnswersAtOnce() {
        long index = api().get("/api/v1/presets").index();
        long started = System.nanoTime();

        var answer = api().get("/api/v1/presets?index=" + (index + 1000) + "&wait=10m");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.index()).isEqualTo(index);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void anExpiredWaitAnswersTheUnchangedDataWithTheSameIndex() {
        var before = api().get("/api/v1/metrics");
        long started = System.nanoTime();

        var after = api().get("/api/v1/metrics?index=" + before.index() + "&wait=300ms");

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(after.status()).isEqualTo(200);
        assertThat(after.index()).isEqualTo(before.index());
        assertThat(after.body()).isEqualTo(before.body());
    }

    @Test
    void aStatusWaiterWakesWhenItsPresetChanges() throws Exception {
        api().post("/api/v1/presets", Map.of("name", "bq_preset", "metrics", Map.of("db_stats", 60)));
        api().post("/api/v1/sources", Map.of("name", "bq-status", "connStr", "postgresql://db/x", "preset", "bq_preset"));
        var status = api().get("/api/v1/sources/bq-status/status");
        var waiter = api().getAsync("/api/v1/sources/bq-status/status?index=" + status.index() + "&wait=30s");
        // The waiter parks unless the engine already reported (state "disconnected"): either way
        // the loop below follows the index until the preset change shows.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> reapers.statusChanges().waiters() >= 1 || waiter.isDone());

        api().put("/api/v1/presets/bq_preset", Map.of("metrics", Map.of("db_stats", 60, "locks", 10)));

        // Status also changes when the engine reports (e.g. the unreachable host): follow the
        // index until the preset change shows, as a client of blocking queries does.
        var woken = waiter.get(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!woken.json().get("metrics").has("locks") && System.nanoTime() < deadline) {
            woken = api().get("/api/v1/sources/bq-status/status?index=" + woken.index() + "&wait=5s");
        }
        assertThat(woken.index()).isGreaterThan(status.index());
        assertThat(woken.json().get("metrics").get("locks").asInt()).isEqualTo(10);
    }

    /** Parked API requests: the collection engine's one store watcher is not counted. */
    static int parkedWaiters(ConfigStore store) {
        int parked = store.changes().waiters() - ENGINE_STORE_WATCHERS;
        for (StoreTable table : StoreTable.values()) {
            parked += store.changes(table).waiters();
        }
        return parked;
    }

    /** Waits until the request is really parked, so the change cannot slip in before it. */
    private void awaitParkedWaiters(int count) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> parkedWaiters(store) >= count);
    }
}
