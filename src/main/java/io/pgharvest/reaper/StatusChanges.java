package io.pgharvest.reaper;

import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.support.ChangeNotifier;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The index blocking status queries wait on. It moves when some source's status changes in a way
 * an operator cares about (state, errors appearing or clearing, lanes, the server), not on every
 * tick: a fleet of 1,000 sources ticks hundreds of times a minute, and a console parked on the
 * status should wake for news, not for timings.
 */
final class StatusChanges {

    /**
     * The last status each source published, to compare the next one with. The previous status,
     * not the last one that woke blocking queries: significance compares fields for equality, so
     * the answer is the same, and this holds the object the reaper publishes anyway instead of a
     * second status per source (35,000 metric statuses at 300 sources).
     */
    private final Map<String, SourceRuntimeStatus> lastStatus = new ConcurrentHashMap<>();
    private final AtomicLong index = new AtomicLong(1);
    private final ChangeNotifier notifier = new ChangeNotifier(1);

    ChangeNotifier notifier() {
        return notifier;
    }

    /** A source's reaper published {@code status}: wakes the waiters if it differs in what matters. */
    void published(SourceRuntimeStatus status) {
        SourceRuntimeStatus previous = lastStatus.put(status.source(), status);
        if (previous == null || significantlyDifferent(previous, status)) {
            advance();
        }
    }

    /** The source no longer collects here. */
    void forget(String source) {
        lastStatus.remove(source);
    }

    /** Something every status shows changed (the configuration, a fleet's owners): wakes the waiters. */
    void advance() {
        notifier.advanceTo(index.incrementAndGet());
    }

    /**
     * Whether blocking status queries should wake: state, connection error, server, period, or
     * a metric's lane or error presence changed (not tick timings). Runs on every tick of every
     * source, so it compares in place rather than building comparable copies.
     */
    static boolean significantlyDifferent(SourceRuntimeStatus a, SourceRuntimeStatus b) {
        if (!Objects.equals(a.state(), b.state()) || !Objects.equals(a.lastConnectionError(), b.lastConnectionError())
                || !Objects.equals(a.serverVersionNum(), b.serverVersionNum())
                || !Objects.equals(a.inRecovery(), b.inRecovery()) || !Objects.equals(a.tickPeriod(), b.tickPeriod())
                || !Objects.equals(a.privilegeWarning(), b.privilegeWarning())
                || (a.noticeWarning() == null) != (b.noticeWarning() == null)
                || !a.undeliveredMetrics().equals(b.undeliveredMetrics())
                || a.metrics().size() != b.metrics().size()) {
            return true;
        }
        for (int i = 0; i < a.metrics().size(); i++) {
            MetricRuntimeStatus x = a.metrics().get(i);
            MetricRuntimeStatus y = b.metrics().get(i);
            if (!x.name().equals(y.name()) || x.lane() != y.lane()
                    || (x.lastError() == null) != (y.lastError() == null)) {
                return true;
            }
        }
        return false;
    }
}
