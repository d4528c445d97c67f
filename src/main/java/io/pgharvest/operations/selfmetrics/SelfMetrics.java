package io.pgharvest.operations.selfmetrics;

import java.util.Map;
import java.util.Set;

/**
 * pgharvest's own state as measurements ({@link SelfReporter}): the names and columns the rest of
 * pgharvest (the alert rules' checks) may rely on, and the source name they are published under.
 *
 * <p>The source name has a colon, which no configured source name may hold, so it never meets a
 * monitored database's; in a fleet it carries the instance id, so the instances' rows (and their
 * alerts' state in the shared store) stay apart.
 */
public final class SelfMetrics {

    /** One row per sink, tag {@code sink}. */
    public static final String SINKS = "self_sinks";
    /** One row per reaper in trouble (stalled or failed), tag {@code reaper}; no row when none is. */
    public static final String REAPERS = "self_reapers";

    /** Each metric's columns and tags, as alert rules read them. */
    public static final Map<String, Set<String>> COLUMNS = Map.of(
            SINKS, Set.of("sink", "up", "queued", "spilled", "spilled_bytes", "written", "dropped", "failures",
                    "parked", "rejected", "rejected_batches"),
            REAPERS, Set.of("reaper", "stalled", "failed", "since_last_tick_s"));

    private static final String PREFIX = "pgharvest:";

    private SelfMetrics() {
    }

    /** {@code pgharvest:<fleet instance id>}, or {@code pgharvest:self} outside a fleet. */
    public static String sourceName(String fleetInstanceId) {
        return PREFIX + (fleetInstanceId == null ? "self" : fleetInstanceId);
    }
}
