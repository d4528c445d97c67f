package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.OutboxEntry;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.Silence;

import io.pgharvest.model.BoundedText;
import io.pgharvest.support.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the outbox: claims due entries, hands each to its receiver (one virtual thread per
 * receiver and round, an alert's entries in order), and records what became of it: delivered,
 * silenced (a direct receiver and an active silence), or failed and due again after a capped
 * exponential back-off, until {@code giveUpAfter}. An entry is marked only after its receiver
 * answered, so a crash between the two sends it again once (at least once); one marked is never
 * sent again. Woken by {@link #wake()} when entries are added, and every {@code pollInterval}
 * for entries other instances added or whose back-off ended.
 */
public final class OutboxDispatcher {

    private static final Logger log = LoggerFactory.getLogger(OutboxDispatcher.class);
    private static final int BATCH = 100;
    private static final Duration PRUNE_EVERY = Duration.ofHours(1);

    /** How the dispatcher is tuned; see {@link NotifyProperties}. */
    public record Tuning(Backoff backoff, Duration giveUpAfter, Duration pollInterval, Duration claimLease,
            Duration retention) {
    }

    private final NotifyStore store;
    private final ReceiverCatalog receivers;
    private final Clock clock;
    private final Tuning tuning;
    private final Semaphore work = new Semaphore(0);
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean running;
    private Thread thread;
    private Instant prunedAt = Instant.MIN;

    public OutboxDispatcher(NotifyStore store, ReceiverCatalog receivers, Clock clock, Tuning tuning) {
        this.store = store;
        this.receivers = receivers;
        this.clock = clock;
        this.tuning = tuning;
    }

    /**
     * Starts the loop; a no-op while it runs. Also after {@link #stop}: Spring stops the lifecycle
     * beans of a context it pauses (a cached test context, a context restart) and starts them
     * again, and a dispatcher that refused would fail that start. A loop still finishing its last
     * round is waited for (briefly), so two loops never claim entries side by side.
     */
    public synchronized void start() {
        if (running && thread != null && thread.isAlive()) {
            return;
        }
        if (thread != null && thread.isAlive()) {
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the previous alert outbox loop ended", e);
            }
            if (thread.isAlive()) {
                throw new IllegalStateException("the previous alert outbox loop did not end within 10 s");
            }
        }
        running = true;
        thread = Thread.ofPlatform().name("alert-outbox").daemon(true).start(this::run);
    }

    /** Asks the loop to end after the round in progress; does not wait. */
    public void stop() {
        running = false;
        work.release();
    }

    public boolean awaitStop(Duration timeout) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        return t == null || t.join(timeout);
    }

    /** Something was added: look now rather than at the next poll. */
    public void wake() {
        work.release();
    }

    /** Notifications receivers accepted since start. */
    public long delivered() {
        return delivered.get();
    }

    /** Failed sends since start. */
    public long failures() {
        return failures.get();
    }

    private void run() {
        while (running) {
            try {
                if (round() == 0) {
                    work.tryAcquire(tuning.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                    work.drainPermits();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // A store that cannot be reached: keep the loop, try again after a poll interval.
                log.warn("Alert outbox round failed: {}", BoundedText.messageOf(e));
                try {
                    Thread.sleep(tuning.pollInterval());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One round: claims and sends what is due; the number of entries handled. */
    int round() {
        Instant now = clock.instant();
        prune(now);
        List<OutboxEntry> due = store.claim(now, BATCH, tuning.claimLease());
        if (due.isEmpty()) {
            return 0;
        }
        List<Silence> silences = store.silences();
        var byReceiver = new LinkedHashMap<String, List<OutboxEntry>>();
        due.forEach(e -> byReceiver.computeIfAbsent(e.key().receiver(), r -> new java.util.ArrayList<>()).add(e));
        try (ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor()) {
            byReceiver.forEach((name, entries) -> senders.submit(() -> entries.forEach(e -> deliver(e, silences))));
        }
        return due.size();
    }

    private void deliver(OutboxEntry entry, List<Silence> silences) {
        String name = entry.key().receiver();
        Optional<ReceiverCatalog.Active> active = receivers.receiver(name);
        if (active.isEmpty()) {
            store.update(entry.finished(OutboxEntry.Status.ABANDONED, "the receiver no longer exists"));
            return;
        }
        Receiver receiver = active.get().receiver();
        Instant now = clock.instant();
        if (receiver.honoursSilences()) {
            Optional<Silence> silence = silences.stream()
                    .filter(s -> s.silences(entry.transition().labels(), now)).findFirst();
            if (silence.isPresent()) {
                store.update(entry.finished(OutboxEntry.Status.SILENCED, "silenced by " + silence.get().id()));
                return;
            }
        }
        try {
            receiver.send(entry.transition());
            store.update(entry.finished(OutboxEntry.Status.DELIVERED, ""));
            delivered.incrementAndGet();
        } catch (DeliveryException | RuntimeException e) {
            failures.incrementAndGet();
            String why = e instanceof DeliveryException ? e.getMessage() : "send failed: " + e.getClass().getSimpleName();
            Instant giveUpAt = entry.createdAt().plus(tuning.giveUpAfter());
            if (!now.isBefore(giveUpAt)) {
                log.warn("Alert receiver {}: giving up on {} of {} after {} attempts: {}", name, entry.key().event(),
                        BoundedText.of(entry.transition().rule()), entry.attempts() + 1, why);
                store.update(entry.failed(now, why).finished(OutboxEntry.Status.ABANDONED, why));
                return;
            }
            Duration wait = tuning.backoff().after(entry.attempts() + 1);
            log.warn("Alert receiver {}: sending {} of {} failed (attempt {}), next in {}: {}", name,
                    entry.key().event(), BoundedText.of(entry.transition().rule()), entry.attempts() + 1, wait, why);
            store.update(entry.failed(now.plus(wait), why));
        }
    }

    private void prune(Instant now) {
        if (prunedAt.plus(PRUNE_EVERY).isAfter(now)) {
            return;
        }
        prunedAt = now;
        int removed = store.prune(now.minus(tuning.retention()));
        if (removed > 0) {
            log.info("Alert outbox: forgot {} finished notifications older than {}", removed, tuning.retention());
        }
    }
}
