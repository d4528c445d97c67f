package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The built-in metrics pgwatch's Grafana dashboards read write pgwatch's table names, data keys and
 * tags (tag columns are {@code tag_<key>}). The expectations are written here from the keys those
 * dashboards query; {@link CatalogVersionMatrixTest} proves on PostgreSQL 14 to 18 that every
 * metric returns exactly its declared columns, so these keys are what lands in the sink.
 */
@Tag("fast")
class PgwatchNamedMetricsTest {

    private static final Map<String, List<String>> PGWATCH_KEYS = Map.ofEntries(
            Map.entry("settings_num", List.of("tag_name", "value")),
            Map.entry("wal_size", List.of("wal_size_b", "wal_file_count")),
            Map.entry("table_stats", List.of("tag_table_full_name", "table_size_b", "total_relation_size_b", "seq_scan",
                    "idx_scan", "n_tup_ins", "n_tup_upd", "n_tup_del", "toast_size_b", "tx_freeze_age",
                    "seconds_since_last_vacuum", "seconds_since_last_analyze")),
            Map.entry("backends", List.of("total", "instance_total", "max_connections", "background_workers", "active",
                    "idle", "idleintransaction", "waiting", "blocked", "longest_waiting_seconds", "avg_waiting_seconds",
                    "longest_session_seconds", "avg_session_seconds", "longest_tx_seconds", "avg_tx_seconds",
                    "longest_autovacuum_seconds", "longest_query_seconds", "avg_query_seconds", "max_xmin_age_tx",
                    "av_workers")),
            Map.entry("db_stats", List.of("numbackends", "xact_commit", "xact_rollback", "blks_read", "blks_hit",
                    "tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted", "temp_bytes",
                    "blk_read_time", "blk_write_time", "sessions", "sessions_abandoned", "sessions_fatal",
                    "sessions_killed", "postmaster_uptime_s", "in_recovery_int")),
            Map.entry("stat_statements", List.of("tag_queryid", "tag_query", "users", "calls", "total_time", "rows",
                    "shared_blks_hit", "shared_blks_read", "shared_blks_written", "temp_blks_read", "temp_blks_written",
                    "blk_read_time", "blk_write_time", "total_plan_time", "jit_generation_time")),
            Map.entry("wal", List.of("xlog_location_b", "in_recovery_int", "postmaster_uptime_s", "timeline")),
            Map.entry("archiver", List.of("is_failing_int")),
            Map.entry("bgwriter", List.of("checkpoints_req", "buffers_checkpoint")),
            Map.entry("db_size", List.of("size_b", "indexes_size_b")),
            Map.entry("stat_lock", List.of("tag_locktype", "waits", "wait_time_ms", "fastpath_exceeded",
                    "stats_reset_s")),
            Map.entry("recovery", List.of("tag_pause_state", "promote_triggered_int", "last_replayed_tli",
                    "replay_end_tli", "replay_lag_b", "seconds_since_last_xact", "seconds_since_current_chunk")),
            Map.entry("privilege_changes", List.of("object_type", "tag_role", "tag_object", "privilege_type")),
            Map.entry("table_io_stats", List.of("tag_table_full_name", "heap_blks_read", "heap_blks_hit",
                    "idx_blks_read", "idx_blks_hit", "toast_blks_read", "toast_blks_hit", "tidx_blks_read",
                    "tidx_blks_hit")),
            Map.entry("stat_statements_calls", List.of("calls", "total_time")),
            Map.entry("table_bloat_approx_summary_sql", List.of("approx_table_bloat_b")),
            Map.entry("index_stats", List.of("tag_index_name", "tag_index_full_name", "tag_table_full_name",
                    "index_size_b", "idx_scan", "idx_tup_read", "idx_tup_fetch", "idx_blks_read", "idx_blks_hit")),
            Map.entry("replication", List.of("tag_application_name", "tag_client_info", "is_sync_int", "write_lag_b",
                    "flush_lag_b", "replay_lag_b")),
            Map.entry("replication_slots", List.of("tag_slot_name", "non_active_int", "restart_lsn_lag_b",
                    "xmin_age_tx")),
            Map.entry("locks_mode", List.of("tag_lockmode", "count")),
            Map.entry("archiver_pending_count", List.of("archiver_pending_count")),
            Map.entry("datfrozenxid", List.of("datfrozenxid_age", "datminmxid_age")),
            Map.entry("postgres_role", List.of("in_recovery_int")),
            Map.entry("sproc_stats", List.of("tag_function_full_name", "tag_oid", "sp_calls", "self_time",
                    "total_time")));

    private final CatalogUnderTest catalog = CatalogUnderTest.get();

    @Test
    void everyPgwatchNamedMetricDeclaresPgwatchsKeysUnderItsOwnTable() {
        PGWATCH_KEYS.forEach((metric, keys) -> {
            assertThat(catalog.metrics()).as(metric).containsKey(metric);
            assertThat(catalog.metrics().get(metric).effectiveStorageName()).isEqualTo(metric);
            assertThat(catalog.declaredColumns(metric)).as(metric).containsAll(keys);
        });
    }

    @Test
    void presetsNamedLikePgwatchsSelectThePgwatchNamedMetrics() {
        assertThat(catalog.presets()).containsKeys("minimal", "basic", "standard", "exhaustive", "full");
        assertThat(catalog.presets().get("full").metrics()).containsAllEntriesOf(
                catalog.presets().get("exhaustive").metrics());
        assertThat(catalog.presets().get("full").metrics()).containsKeys(PGWATCH_KEYS.keySet().toArray(String[]::new));
    }
}
