package io.pgharvest.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * The implementations a metric definition may name as {@code native} instead of giving SQL. The
 * engine's registry of implementations refuses to start unless it has exactly these, so a
 * definition that passes {@link MetricRules} always finds its implementation. Besides these, a kind
 * may implement metrics its discovery adds to what it finds ({@link KindRules#addedNativeMetrics()}).
 */
public final class NativeNames {

    /** Name -> what it collects. */
    public static final Map<String, String> KNOWN = Map.copyOf(new TreeMap<>(Map.ofEntries(
            Map.entry("cpu_load", "load averages of the machine pgharvest runs on (server on this host only)"),
            Map.entry("psutil_cpu", "CPU utilisation and load of this host, as pgwatch's psutil_cpu (server on this"
                    + " host only)"),
            Map.entry("psutil_mem", "memory and swap of this host, as pgwatch's psutil_mem (server on this host only)"),
            Map.entry("psutil_disk", "file systems of the server's data, WAL and log directories and tablespaces"
                    + " (server on this host only)"),
            Map.entry("psutil_disk_io_total", "disk reads and writes of this host since boot (server on this host"
                    + " only)"),
            Map.entry("server_log_event_counts", "log lines by severity from the server's CSV or JSON log"),
            Map.entry("query_stats", "per-interval changes of pg_stat_statements, top statements plus other"
                    + " (docs/query-insights.md)"),
            Map.entry("query_texts", "the normalized text of each query ID once, and again when it changes"
                    + " (docs/query-insights.md)"),
            Map.entry("query_plans", "generic plans of the top plain reads, once a day each, within a time budget"
                    + " (docs/query-insights.md)"),
            Map.entry("log_autovacuum", "autovacuum and autoanalyze runs from the server log (docs/log-insights.md)"),
            Map.entry("log_checkpoints", "checkpoints and restartpoints from the server log, with their reason and timings (docs/log-insights.md)"),
            Map.entry("log_lock_waits", "lock waits past deadlock_timeout from the server log: waiter, holders, wait time (docs/log-insights.md)"),
            Map.entry("log_deadlocks", "deadlocks from the server log with the query IDs of their processes (docs/log-insights.md)"),
            Map.entry("log_temp_files", "temporary files from the server log with their size and query ID (docs/log-insights.md)"),
            Map.entry("log_errors", "errors, fatals and panics from the server log by SQLSTATE and query ID (docs/log-insights.md)"),
            Map.entry("log_connection_failures", "refused connections from the server log by cause and client address (docs/log-insights.md)"),
            Map.entry("log_slow_statements", "statements over log_min_duration_statement from the server log (docs/log-insights.md)"),
            Map.entry("log_plans", "auto_explain's actual plans from the server log, hashed by shape (docs/log-insights.md)"),
            Map.entry("log_server_events", "crashes, crash recovery, replication and standby events, out of memory or disk from the server log (docs/log-insights.md)"),
            Map.entry("active_sessions", "the sessions that are not idle, sampled at each run and summed per session,"
                    + " statement and wait every pgharvest.query-insights.sample-rows-every"
                    + " (docs/query-insights.md)"))));

    private NativeNames() {
    }

    public static boolean isKnown(String name) {
        return name != null && KNOWN.containsKey(name);
    }

    /**
     * Whether an implementation may be registered under {@code name}: a known name, or one that a
     * kind's discovery adds to the sources it finds ({@link SourceKind#addedNativeMetrics()}).
     */
    public static boolean isImplementable(String name) {
        return isKnown(name) || name != null
                && SourceKind.values().stream().anyMatch(kind -> kind.addedNativeMetrics().containsKey(name));
    }
}
