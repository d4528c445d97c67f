package io.pgharvest.reaper.schedule;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.ConnectionString.HostPort;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

/**
 * Which new reapers collect at once instead of at their next grid point: at most
 * {@link #PER_SERVER} per server at a time. A source just added shows data within seconds; a
 * pgharvest starting with hundreds of databases of one server does not send all their first ticks
 * (each a full set of metrics) in the same moment: a few collect at once, the others keep their
 * place on the grid, spread over the period by their phase, and log in once the early first ticks
 * of their server are over ({@link #settled}).
 */
public final class EarlyStarts {

    /**
     * Few: an early first tick is a cold backend parsing and planning every metric, and several
     * together on a server of a few cores delay each other's first rows (8 took 0.4 s longer than
     * 3 to deliver the first row at 300 sources; docs/engine.md).
     */
    public static final int PER_SERVER = 3;

    /** First ticks in progress per server; a server without any has no entry. */
    private final Map<HostPort, Integer> inProgress = new ConcurrentHashMap<>();
    /** Completed when the server's last early first tick is over; an entry per server in {@link #inProgress}. */
    private final Map<HostPort, CompletableFuture<Void>> settled = new ConcurrentHashMap<>();

    /**
     * @return what to run once the reaper's first tick is over (idempotent), or null when the
     *     server already has {@link #PER_SERVER} early first ticks in progress
     */
    public Runnable tryStart(ConnectionString connection) {
        HostPort server = connection.hosts().getFirst();
        var taken = new AtomicBoolean();
        inProgress.compute(server, (key, count) -> {
            int now = count == null ? 0 : count;
            if (now >= PER_SERVER) {
                return count;
            }
            taken.set(true);
            settled.computeIfAbsent(server, k -> new CompletableFuture<>());
            return now + 1;
        });
        if (!taken.get()) {
            return null;
        }
        var released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                inProgress.computeIfPresent(server, (key, count) -> {
                    if (count > 1) {
                        return count - 1;
                    }
                    var done = settled.remove(server);
                    if (done != null) {
                        done.complete(null);
                    }
                    return null;
                });
            }
        };
    }

    /**
     * Done when no early first tick of {@code connection}'s server is in progress (at once when
     * none is). A reaper that does not collect early logs in after it: its first grid point is
     * still ahead, and at a start with hundreds of sources their logins (each a new server
     * backend) otherwise took the machine from the few first ticks that deliver the first rows.
     */
    public CompletableFuture<Void> settled(ConnectionString connection) {
        return settled.getOrDefault(connection.hosts().getFirst(), CompletableFuture.completedFuture(null));
    }
}
