package io.pgharvest.window;

import java.util.List;
import java.util.Map;

/**
 * The instance-wide views of a source: transaction ID and multixact ages per database against their
 * limits ({@code xid_wraparound}), standbys with their lag ({@code replication}) and replication slots
 * with the WAL they retain ({@code replication_slots}).
 */
final class ServerViews {

    static final String WRAPAROUND = "xid_wraparound";
    static final String REPLICATION = "replication";
    static final String SLOTS = "replication_slots";

    /**
     * One database's ages: {@code *Percent} are the share of autovacuum_freeze_max_age (or
     * autovacuum_multixact_freeze_max_age), past which autovacuum forces a vacuum, and of the hard
     * limit of 2^31, at which the server stops assigning IDs.
     */
    record DatabaseAge(String database, Double xidAge, Double xidPercentOfFreezeMaxAge, Double xidPercentOfWraparound,
            Double mxidAge, Double mxidPercentOfFreezeMaxAge, Double mxidPercentOfWraparound) {
    }

    /** One standby (or other WAL receiver) of the server with how far behind it is. */
    record Standby(String application, String client, String state, String syncState, Double sentLagBytes,
            Double replayLagBytes, Double replayLagSeconds, Double writeLagSeconds, Double flushLagSeconds,
            Double lastReplySeconds) {
    }

    /** One replication slot: active or not, the WAL it retains, the xmin it holds back. */
    record Slot(String name, String type, String database, boolean active, String walStatus, Double retainedWalBytes,
            Double safeWalSizeBytes, Double xminAge, Double inactiveSeconds, String invalidationReason) {
    }

    /** The columns these views read of each metric: what the window keeps of their reads. */
    static final Map<String, ViewRows.Columns> COLUMNS = Map.of(
            WRAPAROUND, ViewRows.Columns.of(List.of("datname"), List.of("xid_age", "xid_pct_of_freeze_max_age",
                    "xid_pct_of_wraparound", "mxid_age", "mxid_pct_of_freeze_max_age", "mxid_pct_of_wraparound")),
            REPLICATION, ViewRows.Columns.of(List.of("application_name", "client_addr", "state", "sync_state"),
                    List.of("sent_lag_b", "replay_lag_b", "replay_lag_s", "write_lag_s", "flush_lag_s",
                            "last_reply_age_s")),
            SLOTS, ViewRows.Columns.of(List.of("slot_name", "slot_type", "datname", "wal_status", "invalidation_reason"),
                    List.of("active", "retained_wal_b", "safe_wal_size", "xmin_age_tx", "inactive_s")));

    private ServerViews() {
    }

    static List<DatabaseAge> ages(ViewRows rows) {
        return rows.rows().stream().map(r -> new DatabaseAge(r.textOrEmpty("datname"), r.number("xid_age"),
                r.number("xid_pct_of_freeze_max_age"), r.number("xid_pct_of_wraparound"),
                r.number("mxid_age"), r.number("mxid_pct_of_freeze_max_age"),
                r.number("mxid_pct_of_wraparound"))).toList();
    }

    static List<Standby> standbys(ViewRows rows) {
        return rows.rows().stream().map(r -> new Standby(r.textOrEmpty("application_name"),
                r.textOrEmpty("client_addr"), r.textOrEmpty("state"), r.textOrEmpty("sync_state"),
                r.number("sent_lag_b"), r.number("replay_lag_b"), r.number("replay_lag_s"),
                r.number("write_lag_s"), r.number("flush_lag_s"), r.number("last_reply_age_s")))
                .toList();
    }

    static List<Slot> slots(ViewRows rows) {
        return rows.rows().stream().map(r -> new Slot(r.textOrEmpty("slot_name"), r.textOrEmpty("slot_type"),
                r.textOrEmpty("datname"), r.flag("active"), r.textOrEmpty("wal_status"),
                r.number("retained_wal_b"), r.number("safe_wal_size"), r.number("xmin_age_tx"),
                r.number("inactive_s"), r.text("invalidation_reason"))).toList();
    }
}
