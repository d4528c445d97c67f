package io.pgharvest.reaper;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.ConnectionString.HostPort;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Which new reapers collect at once instead of at their next grid point: at most
 * {@link #PER_SERVER} per server at a time. A source just added shows data within seconds; a
 * pgharvest starting with hundreds of databases of one server does not send all their first ticks
 * (each a full set of metrics) in the same moment: a few collect at once, the others keep their
 * place on the grid, spread over the period by their phase.
 */
final class EarlyStarts {

    static final int PER_SERVER = 8;

    /** First ticks in progress per server; a server without any has no entry. */
    private final Map<HostPort, Integer> inProgress = new ConcurrentHashMap<>();

    /**
     * @return what to run once the reaper's first tick is over (idempotent), or null when the
     *     server already has {@link #PER_SERVER} early first ticks in progress
     */
    Runnable tryStart(ConnectionString connection) {
        HostPort server = connection.hosts().getFirst();
        var taken = new AtomicBoolean();
        inProgress.compute(server, (key, count) -> {
            int now = count == null ? 0 : count;
            if (now >= PER_SERVER) {
                return count;
            }
            taken.set(true);
            return now + 1;
        });
        if (!taken.get()) {
            return null;
        }
        var released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                inProgress.computeIfPresent(server, (key, count) -> count == 1 ? null : count - 1);
            }
        };
    }
}
