package io.pgharvest.sink.delivery;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A channel's stop request as its writer and spiller wait for it: {@link #signal} is given once by
 * {@link SinkChannel#stop}, after the queue has left RUNNING, and ends every wait at once;
 * {@link #abandon} is given only when the writer is still blocked in the sink after the flush
 * timeout, and tells it to take no further batch. Thread-safe, lock-free.
 */
final class StopSignal {

    private final CountDownLatch latch = new CountDownLatch(1);
    private volatile boolean abandoned;

    void signal() {
        latch.countDown();
    }

    void abandon() {
        abandoned = true;
    }

    boolean abandoned() {
        return abandoned;
    }

    /** @return true when stop was signalled before {@code timeout} passed */
    boolean await(Duration timeout) throws InterruptedException {
        return latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits {@code timeout} or until stop is signalled; an interrupt is kept for the caller's loop. */
    void sleep(Duration timeout) {
        try {
            await(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
