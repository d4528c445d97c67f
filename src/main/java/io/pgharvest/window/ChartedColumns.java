package io.pgharvest.window;

import static io.pgharvest.window.SeriesKind.COUNTER;
import static io.pgharvest.window.SeriesKind.DELTA;
import static io.pgharvest.window.SeriesKind.GAUGE;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The metrics and columns the recent window keeps (docs/console.md lists them): database
 * activity, connections, cache, size, replication lag, locks, transaction ages, temp files, WAL,
 * checkpoints and the query-insights statistics. Everything else a reaper collects goes to the
 * sinks only. Columns are the built-in catalog's names; a metric an operator redefines under the
 * same name is kept when its columns keep those names. The history readers read the same columns
 * with the same kinds back from the stores, so a chart is one definition whether memory or a store
 * answers it.
 */
public final class ChartedColumns {

    /** The query-insights statistics: per-interval deltas of each statement, summed over a range. */
    public static final String QUERY_STATS = SourceWindow.QUERY_STATS;

    private static final Map<String, Map<String, SeriesKind>> KEPT = build();

    private ChartedColumns() {
    }

    private static Map<String, Map<String, SeriesKind>> build() {
        var kept = new LinkedHashMap<String, Map<String, SeriesKind>>();
        kept.put("db_stats", columns(COUNTER, "xact_commit", "xact_rollback", "blks_read", "blks_hit", "tup_returned",
                "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted", "temp_files", "temp_bytes", "deadlocks",
                "conflicts"));
        kept.get("db_stats").put("numbackends", GAUGE);
        kept.put("db_size", columns(GAUGE, "size_b"));
        kept.put("backends", columns(GAUGE, "total", "max_connections", "active", "idle", "idleintransaction", "waiting",
                "blocked", "longest_tx_seconds", "longest_query_seconds", "max_xmin_age_tx"));
        kept.put("connections", columns(GAUGE, "processes"));
        kept.put("locks", columns(GAUGE, "waiting"));
        kept.put("replication", columns(GAUGE, "replay_lag_b", "replay_lag_s"));
        kept.put("wal_receiver", columns(GAUGE, "unreplayed_b", "last_msg_age_s"));
        kept.put("xmin_horizon", columns(GAUGE, "session_xmin_age", "session_xid_age", "prepared_xact_age",
                "slot_xmin_age"));
        kept.put("temp_files", columns(GAUGE, "current_bytes"));
        kept.get("temp_files").put("temp_bytes_total", COUNTER);
        kept.put("wal", columns(COUNTER, "wal_bytes", "wal_records", "wal_fpi"));
        kept.put("checkpointer", columns(COUNTER, "num_timed", "num_requested", "buffers_written"));
        kept.get("checkpointer").put("wal_since_redo_b", GAUGE);
        kept.put("stat_statements_totals", columns(COUNTER, "calls", "total_exec_time", "rows", "shared_blks_read"));
        kept.put(SourceWindow.QUERY_STATS, columns(DELTA, SourceWindow.STATEMENT_COLUMNS.toArray(String[]::new)));
        var frozen = new LinkedHashMap<String, Map<String, SeriesKind>>();
        kept.forEach((metric, columns) -> frozen.put(metric, Map.copyOf(columns)));
        return Map.copyOf(frozen);
    }

    private static Map<String, SeriesKind> columns(SeriesKind kind, String... names) {
        var columns = new LinkedHashMap<String, SeriesKind>();
        for (String name : names) {
            columns.put(name, kind);
        }
        return columns;
    }

    /** The columns kept of {@code metric}, or null when the window keeps none of it. */
    public static Map<String, SeriesKind> of(String metric) {
        return KEPT.get(metric);
    }

    public static Optional<SeriesKind> kind(String metric, String column) {
        Map<String, SeriesKind> columns = KEPT.get(metric);
        return Optional.ofNullable(columns == null ? null : columns.get(column));
    }

    /** Every kept metric name (the API's {@code metric} parameter accepts these). */
    public static java.util.Set<String> metrics() {
        return KEPT.keySet();
    }
}
