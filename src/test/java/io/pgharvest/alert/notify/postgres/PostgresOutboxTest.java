package io.pgharvest.alert.notify.postgres;

import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.dispatch.NotifyHarness;
import io.pgharvest.alert.notify.dispatch.OutboxContractTest;

import static io.pgharvest.alert.notify.dispatch.Transitions.firing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The outbox in the configuration database, which several instances share. */
class PostgresOutboxTest extends OutboxContractTest {

    /** One database for the class (each test has a receiver of its own): a migration costs seconds. */
    private static NotifyHarness.PostgresDatabase database;

    @BeforeAll
    static void createDatabase() {
        database = NotifyHarness.freshDatabase();
    }

    @AfterAll
    static void closeDatabase() {
        database.close();
    }

    @Override
    protected NotifyStore openStore() {
        return database.store();
    }

    @Test
    void twoInstancesDispatchingOneOutboxSendEachEntryOnce() throws InterruptedException {
        try (var other = new NotifyHarness(openStore()).start()) {
            Instant start = Instant.now();
            for (int i = 0; i < 40; i++) {
                harness.notifications.transition(firing("sequence_max", "db" + i, "warning", start));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> webhook.received().size() >= 40);
            awaitAllFinished(hook);
            Map<String, Long> perSource = webhook.received().stream().collect(Collectors.groupingBy(
                    r -> r.json().get("labels").get("source").asString(), Collectors.counting()));
            assertThat(perSource).hasSize(40).allSatisfy((source, count) -> assertThat(count).isEqualTo(1));
            assertThat(other.dispatcher.delivered() + harness.dispatcher.delivered()).isEqualTo(40);
        }
    }
}
