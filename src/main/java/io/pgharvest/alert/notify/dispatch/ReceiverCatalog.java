package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.ReceiverDefinition;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receivers as the store has them, each bound and created once: re-read after this
 * instance's API writes ({@link #refresh()}) and, for what other instances wrote, when the last
 * read is older than {@code maxAge}. A receiver whose definition changed is closed and created
 * again; one whose stored options no longer bind (a kind gone from this build) is left out and
 * logged, by name only.
 */
public final class ReceiverCatalog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReceiverCatalog.class);

    /** A receiver ready to send, with the definition it was made from. */
    public record Active(ReceiverDefinition definition, Receiver receiver) {

        public String name() {
            return definition.name();
        }
    }

    private final NotifyStore store;
    private final ReceiverBinder binder;
    private final Clock clock;
    private final Duration maxAge;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Map<String, Active> active = Map.of();
    private volatile Instant readAt = Instant.MIN;

    public ReceiverCatalog(NotifyStore store, ReceiverBinder binder, Clock clock, Duration maxAge) {
        this.store = store;
        this.binder = binder;
        this.clock = clock;
        this.maxAge = maxAge;
    }

    /** Every receiver, in the store's order. */
    public List<Active> receivers() {
        return List.copyOf(current().values());
    }

    public Optional<Active> receiver(String name) {
        return Optional.ofNullable(current().get(name));
    }

    private Map<String, Active> current() {
        if (readAt.plus(maxAge).isBefore(clock.instant())) {
            refresh();
        }
        return active;
    }

    /** Re-reads the store now. */
    public void refresh() {
        lock.lock();
        try {
            Map<String, Active> old = active;
            var next = new LinkedHashMap<String, Active>();
            var kept = new HashMap<String, Active>();
            for (ReceiverDefinition definition : store.receivers()) {
                Active before = old.get(definition.name());
                if (before != null && before.definition().equals(definition)) {
                    next.put(definition.name(), before);
                    kept.put(definition.name(), before);
                    continue;
                }
                try {
                    next.put(definition.name(), new Active(definition, binder.bind(definition).create()));
                } catch (RuntimeException e) {
                    log.warn("Alert receiver {} is left out: its stored options do not bind ({} problem(s))",
                            definition.name(), e instanceof NotifyInputException invalid ? invalid.problems().size() : 1);
                }
            }
            active = Map.copyOf(next);
            readAt = clock.instant();
            old.forEach((name, receiver) -> {
                if (kept.get(name) != receiver) {
                    receiver.receiver().close();
                }
            });
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        active.values().forEach(a -> a.receiver().close());
        active = Map.of();
    }
}
