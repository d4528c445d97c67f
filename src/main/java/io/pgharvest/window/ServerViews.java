package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.util.List;

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

    private ServerViews() {
    }

    static List<DatabaseAge> ages(List<Measurement.Row> rows) {
        return rows.stream().map(r -> new DatabaseAge(Cells.textOrEmpty(r, "datname"), Cells.number(r, "xid_age"),
                Cells.number(r, "xid_pct_of_freeze_max_age"), Cells.number(r, "xid_pct_of_wraparound"),
                Cells.number(r, "mxid_age"), Cells.number(r, "mxid_pct_of_freeze_max_age"),
                Cells.number(r, "mxid_pct_of_wraparound"))).toList();
    }

    static List<Standby> standbys(List<Measurement.Row> rows) {
        return rows.stream().map(r -> new Standby(Cells.textOrEmpty(r, "application_name"),
                Cells.textOrEmpty(r, "client_addr"), Cells.textOrEmpty(r, "state"), Cells.textOrEmpty(r, "sync_state"),
                Cells.number(r, "sent_lag_b"), Cells.number(r, "replay_lag_b"), Cells.number(r, "replay_lag_s"),
                Cells.number(r, "write_lag_s"), Cells.number(r, "flush_lag_s"), Cells.number(r, "last_reply_age_s")))
                .toList();
    }

    static List<Slot> slots(List<Measurement.Row> rows) {
        return rows.stream().map(r -> new Slot(Cells.textOrEmpty(r, "slot_name"), Cells.textOrEmpty(r, "slot_type"),
                Cells.textOrEmpty(r, "datname"), Cells.flag(r, "active"), Cells.textOrEmpty(r, "wal_status"),
                Cells.number(r, "retained_wal_b"), Cells.number(r, "safe_wal_size"), Cells.number(r, "xmin_age_tx"),
                Cells.number(r, "inactive_s"), Cells.text(r, "invalidation_reason"))).toList();
    }
}
