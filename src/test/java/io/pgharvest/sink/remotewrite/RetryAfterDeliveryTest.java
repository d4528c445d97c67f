package io.pgharvest.sink.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A receiver that answers 429 with Retry-After is left alone for that long, although the sink's
 * back-off (retry-initial 100ms) and its probes would come back sooner; meanwhile measurements are
 * kept, and afterwards every one of them arrives once, in order.
 */
class RetryAfterDeliveryTest {

    @TempDir
    Path dir;

    @Test
    void a429WithRetryAfterHoldsEveryRequestBackThatLongAndLosesNothing() throws Exception {
        TestPostgres server = TestPostgres.shared();
        String database = "retry_after_" + ProcessHandle.current().pid();
        server.createDatabase(database);
        try (var receiver = new ScriptedReceiver()) {
            receiver.then(429, Map.of("Retry-After", "4"));
            try (var harvester = new CollectingHarvester(dir, server, database, receiver.url(), "{db_stats: 1}",
                    "retry-initial=100ms", "headers.X-Scope-OrgID=tenant-b")) {
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.received().size() >= 3
                        && harvester.collected("db_stats").size() >= 8);
                harvester.stop();
                List<CollectingHarvester.Collected> collected = harvester.collected("db_stats");
                List<ScriptedReceiver.Received> requests = receiver.received();

                assertThat(requests).allSatisfy(r -> assertThat(r.headers().getFirst("X-Scope-OrgID"))
                        .as("a header bound from pgharvest.sinks[0].headers").isEqualTo("tenant-b"));
                long quiet = requests.get(1).nanoTime() - requests.getFirst().nanoTime();
                assertThat(Duration.ofNanos(quiet)).as("pause after 429 Retry-After: 4")
                        .isGreaterThanOrEqualTo(Duration.ofSeconds(4));
                var sent = new ArrayList<Long>();
                for (ScriptedReceiver.Received request : requests.subList(1, requests.size())) {
                    WriteRequests.decode(request.body()).stream()
                            .filter(s -> s.labels().get("__name__").equals("pgharvest_db_stats_numbackends"))
                            .forEach(s -> sent.addAll(s.timestamps()));
                }
                assertThat(sent).containsExactlyElementsOf(collected.stream()
                        .map(c -> c.time().truncatedTo(ChronoUnit.MILLIS).toEpochMilli()).toList());
            }
        }
    }
}
