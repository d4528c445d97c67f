package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reads of a large source, as the database views see them at fleet scale: 1,000 tables
 * (table_stats, table_maintenance), 1,000 indexes (index_stats), 300 sessions (query_samples) and one
 * database (xid_wraparound). Shared by the views' benchmark and the window's memory test, so the
 * memory measured is the memory of the source the benchmark times.
 */
public final class FleetViewReads {

    public static final int TABLES = 1000;
    public static final int SESSIONS = 300;

    private FleetViewReads() {
    }

    /** The five view reads of source number {@code source}, named {@code name}, taken at {@code time}. */
    public static List<Measurement> of(String name, int source, Instant time) {
        return List.of(new Measurement(name, "table_stats", time, tableStats(source), Map.of()),
                new Measurement(name, "table_maintenance", time, tableMaintenance(), Map.of()),
                new Measurement(name, "index_stats", time, indexStats(source), Map.of()),
                new Measurement(name, "query_samples", time, sessions(source), Map.of()),
                new Measurement(name, "xid_wraparound", time, List.of(row(Map.of("datname", "db" + source),
                        "age", 1_000_000L * (source + 1), "mxid_age", 1000L, "freeze_max_age", 200_000_000L)), Map.of()));
    }

    private static List<Measurement.Row> tableStats(int source) {
        var rows = new ArrayList<Measurement.Row>(TABLES);
        for (int t = 0; t < TABLES; t++) {
            rows.add(row(table(t), "table_size_b", 8192L * (t + source), "total_relation_size_b", 16384L * (t + source),
                    "n_live_tup", 1000L * t, "n_dead_tup", 7L * t, "seconds_since_last_vacuum", 60L * t,
                    "seconds_since_last_analyze", 30L * t, "vacuum_count", 1, "autovacuum_count", t % 9,
                    "analyze_count", 1, "autoanalyze_count", t % 5, "tx_freeze_age", 100_000L * t, "seq_scan", t,
                    "idx_scan", 3L * t, "n_tup_ins", 10L * t));
        }
        return rows;
    }

    private static List<Measurement.Row> tableMaintenance() {
        var rows = new ArrayList<Measurement.Row>(TABLES);
        for (int t = 0; t < TABLES; t++) {
            rows.add(row(table(t), "n_live_tup", 1000L * t, "n_dead_tup", 7L * t, "vacuum_threshold", 50 + 200L * t,
                    "vacuum_due", t % 17 == 0 ? 1 : 0, "insert_vacuum_due", 0, "n_ins_since_vacuum", t,
                    "insert_vacuum_threshold", 1000L * t, "analyze_due", t % 23 == 0 ? 1 : 0, "n_mod_since_analyze", t,
                    "analyze_threshold", 100L * t, "freeze_age", 100_000L * t, "freeze_max_age", 200_000_000L,
                    "autovacuum_enabled", 1));
        }
        return rows;
    }

    private static List<Measurement.Row> indexStats(int source) {
        var rows = new ArrayList<Measurement.Row>(TABLES);
        for (int t = 0; t < TABLES; t++) {
            var tags = new HashMap<>(table(t));
            tags.put("index_name", "t" + t + "_pkey");
            rows.add(row(tags, "index_size_b", 8192L * (t + source), "idx_scan", t % 11 == 0 ? 0 : 5L * t,
                    "last_idx_scan_age_s", 10L * t, "is_unique", t % 2, "is_primary", t % 2, "is_valid", 1,
                    "stats_reset_age_s", 86_400));
        }
        return rows;
    }

    private static List<Measurement.Row> sessions(int source) {
        var rows = new ArrayList<Measurement.Row>(SESSIONS);
        for (int s = 0; s < SESSIONS; s++) {
            rows.add(new Measurement.Row(Map.of("duration_s", 0.5 * s, "transaction_duration_s", 1.0 * s),
                    Map.of("pid", String.valueOf(10_000 + s), "dbname", "db" + source, "user_name", "app",
                            "application_name", "worker-" + s % 20, "backend_type", "client backend",
                            "state", s % 3 == 0 ? "idle in transaction" : "active", "wait_event_type", "Lock",
                            "wait_event", "transactionid", "queryid", String.valueOf(1_000_000L + s % 50),
                            "blocking_pids", s > 0 && s % 10 == 0 ? String.valueOf(10_000 + s - 1) : "")));
        }
        return rows;
    }

    private static Map<String, String> table(int t) {
        return Map.of("schema", "public", "table_name", "t" + t);
    }

    private static Measurement.Row row(Map<String, String> tags, Object... columnsAndValues) {
        var values = new HashMap<String, Object>();
        for (int i = 0; i < columnsAndValues.length; i += 2) {
            values.put((String) columnsAndValues[i], columnsAndValues[i + 1]);
        }
        return new Measurement.Row(values, tags);
    }
}
