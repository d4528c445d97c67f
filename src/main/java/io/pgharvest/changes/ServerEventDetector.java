package io.pgharvest.changes;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows one source's {@code db_stats} reads (pgwatch's keys {@code postmaster_uptime_s} and
 * {@code in_recovery_int}, so pgwatch's own db_stats SQL serves too) and reports a server restart
 * and a role change (a standby promoted, or a primary now in recovery) as pgwatch's
 * {@code object_changes} rows, whose {@code details} text pgwatch's change-events dashboard shows
 * as annotations; {@code event} names the kind for queries. A restart is a postmaster start time
 * (read time minus uptime) later than the one seen before: unlike "the uptime went down", it is
 * not missed when the next read comes after a longer uptime than the last. A failover to another
 * server shows as a restart too. The first read only records, as for the other change kinds. Not
 * thread-safe: one per source, used by that source's reaper thread.
 */
final class ServerEventDetector {

    /** The metric followed. */
    static final String DB_STATS = "db_stats";
    /** The table the events are written to (pgwatch's). */
    static final String OBJECT_CHANGES = "object_changes";

    /** Uptime is whole seconds read at a fractional time: estimates of one start differ by up to 1 s. */
    private static final long START_TOLERANCE_S = 2;

    private Long startEpochS;
    private Boolean inRecovery;

    /** The event rows between the previous read and this one, taken at {@code time}; empty on the first read. */
    List<Measurement.Row> compare(Instant time, List<Measurement.Row> read) {
        if (read.isEmpty()) {
            return List.of();
        }
        Map<String, Object> now = read.getFirst().values();
        Long start = now.get("postmaster_uptime_s") instanceof Number uptime
                ? time.getEpochSecond() - uptime.longValue() : null;
        Boolean recovery = now.get("in_recovery_int") instanceof Number flag ? flag.intValue() != 0 : null;
        var events = new ArrayList<Measurement.Row>();
        if (startEpochS != null && start != null && start - startEpochS > START_TOLERANCE_S) {
            events.add(event("restart", "server restarted (or failed over): postmaster start time changed"));
        }
        if (inRecovery != null && recovery != null && !recovery.equals(inRecovery)) {
            events.add(recovery
                    ? event("demote", "role changed: the primary is now a standby (in recovery)")
                    : event("promote", "role changed: the standby was promoted to primary"));
        }
        if (start != null && (startEpochS == null || Math.abs(start - startEpochS) > START_TOLERANCE_S)) {
            startEpochS = start;
        }
        inRecovery = recovery == null ? inRecovery : recovery;
        return events;
    }

    private static Measurement.Row event(String event, String details) {
        var values = new LinkedHashMap<String, Object>();
        values.put("event", event);
        values.put("details", details);
        return new Measurement.Row(values, Map.of());
    }
}
