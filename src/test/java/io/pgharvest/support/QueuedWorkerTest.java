package io.pgharvest.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class QueuedWorkerTest {

    @Test
    void aFullQueueDropsAndCountsWithoutWaitingAndAFailingItemDoesNotStopTheWorker() throws Exception {
        var release = new CountDownLatch(1);
        List<Integer> done = new CopyOnWriteArrayList<>();
        var worker = new QueuedWorker<Integer>("test-worker", 2, item -> {
            if (item == 0) {
                await().until(() -> release.getCount() == 0);
            }
            if (item == 2) {
                throw new IllegalStateException("item 2 fails");
            }
            done.add(item);
        });
        worker.start();
        worker.offer(0); // taken, then blocks the worker
        await().until(() -> worker.queued() == 0);
        worker.offer(1);
        worker.offer(2);
        worker.offer(3); // the queue holds two: dropped
        assertThat(worker.dropped()).isEqualTo(1);
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> worker.queued() == 0);
        worker.offer(4);
        await().atMost(Duration.ofSeconds(5)).until(() -> done.contains(4));
        assertThat(done).containsExactly(0, 1, 4);
        worker.stop();
    }

    @Test
    void itStartsAgainAfterAStopAndRunsItsTick() {
        var items = new AtomicInteger();
        var ticks = new AtomicInteger();
        var worker = new QueuedWorker<Integer>("test-ticker", 4, item -> items.incrementAndGet(),
                Duration.ofMillis(20), ticks::incrementAndGet);
        worker.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> ticks.get() >= 2);
        worker.stop();
        assertThat(worker.isRunning()).isFalse();
        worker.start(); // as Spring does when it resumes a paused context
        worker.offer(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> items.get() == 1);
        assertThat(worker.isRunning()).isTrue();
        worker.stop();
    }

    @Test
    void aTickingWorkerKeepsTickingAfterATickFails() {
        var ticks = new AtomicInteger();
        var worker = QueuedWorker.ticking("test-periodic", Duration.ofMillis(10), () -> {
            if (ticks.incrementAndGet() == 1) {
                throw new IllegalStateException("the first round fails");
            }
        });
        worker.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> ticks.get() >= 3);
        worker.stop();
        assertThat(worker.isRunning()).isFalse();
    }

    @Test
    void aPeriodWithoutATickIsRefused() {
        assertThatThrownBy(() -> new QueuedWorker<Integer>("x", 1, item -> { }, Duration.ofSeconds(1), null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
