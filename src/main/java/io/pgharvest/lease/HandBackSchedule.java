package io.pgharvest.lease;

import io.pgharvest.model.SourceRuntimeStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * When to give up each source being handed back: just after its next tick has started, so that
 * the reaper here finishes that tick and stops, the lease is freed, and the next owner starts
 * before the following grid point (the grid is the same on every instance): no tick is missed. A
 * source without a known schedule, or whose next tick is far off, is given up at once.
 *
 * <p>Stateless; {@link #run} blocks its caller (a hand-back thread, or the stopping thread) until
 * the last source is given up.
 */
final class HandBackSchedule {

    /** How long after a tick's due time its reaper is told to stop: the tick has begun by then. */
    private static final long HAND_BACK_DELAY_MILLIS = 100;
    /** Sources whose next tick is further off are handed back at once (a missed tick is then unlikely to matter). */
    private static final long MAX_HAND_BACK_WAIT_MILLIS = 10_000;

    private final Function<String, Optional<SourceRuntimeStatus>> statuses;

    HandBackSchedule(Function<String, Optional<SourceRuntimeStatus>> statuses) {
        this.statuses = statuses;
    }

    /** Gives up {@code sources} in groups, each at its time ({@code giveUp} is called once per group). */
    void run(Set<String> sources, Consumer<Collection<String>> giveUp) {
        for (var entry : plan(sources, System.currentTimeMillis()).entrySet()) {
            long wait = entry.getKey() - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            giveUp.accept(entry.getValue());
        }
    }

    /** Epoch millis to the sources to give up then, in order. */
    private TreeMap<Long, List<String>> plan(Set<String> sources, long now) {
        var order = new TreeMap<Long, List<String>>();
        for (String source : sources) {
            long at = statuses.apply(source)
                    .filter(status -> status.lastTickStart() != null && status.tickPeriod() != null)
                    .map(status -> nextTickAfter(status.lastTickStart().toEpochMilli(),
                            status.tickPeriod().toMillis(), now) + HAND_BACK_DELAY_MILLIS)
                    .filter(due -> due - now <= MAX_HAND_BACK_WAIT_MILLIS)
                    .orElse(now);
            order.computeIfAbsent(at, k -> new ArrayList<>()).add(source);
        }
        return order;
    }

    private static long nextTickAfter(long lastTick, long period, long now) {
        long next = lastTick + period;
        while (next < now) {
            next += period;
        }
        return next;
    }
}
