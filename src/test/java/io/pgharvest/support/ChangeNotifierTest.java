package io.pgharvest.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class ChangeNotifierTest {

    @Test
    void everyParkedWaiterWakesWithTheNewIndexWhenItAdvances() throws Exception {
        var notifier = new ChangeNotifier(7);
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Long> first = threads.submit(() -> notifier.awaitAbove(7, Duration.ofMinutes(2)));
            Future<Long> second = threads.submit(() -> notifier.awaitAbove(7, Duration.ofMinutes(2)));
            await().atMost(Duration.ofSeconds(60)).until(() -> notifier.waiters() == 2);

            notifier.advanceTo(9);

            assertThat(first.get(60, TimeUnit.SECONDS)).isEqualTo(9);
            assertThat(second.get(60, TimeUnit.SECONDS)).isEqualTo(9);
            assertThat(notifier.waiters()).isZero();
        }
    }

    @Test
    void theIndexNeverGoesBackAndAWaiterBehindItReturnsAtOnce() throws InterruptedException {
        var notifier = new ChangeNotifier(5);

        notifier.advanceTo(3);

        assertThat(notifier.index()).isEqualTo(5);
        assertThat(notifier.awaitAbove(4, Duration.ofDays(1))).isEqualTo(5);
    }

    @Test
    void aWaitThatSeesNoChangeEndsWithTheIndexItWasGiven() throws InterruptedException {
        var notifier = new ChangeNotifier(5);

        assertThat(notifier.awaitAbove(5, 1, TimeUnit.MILLISECONDS)).isEqualTo(5);
    }
}
