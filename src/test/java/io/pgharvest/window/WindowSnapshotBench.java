package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The window snapshot's size and write time at a fleet's size (bench/window-snapshot-bench.sh runs
 * it; not a test): {@code sources} sources with the series shape the standard preset gives (92 a
 * source: docs/performance.md), an hour at {@code interval} seconds, 12 statement texts a source.
 * Prints the window's counted memory, the file's size and the median of five writes (copy, encode,
 * fsync, rename) and of five reads (decode and restore into a fresh window).
 */
public final class WindowSnapshotBench {

    private WindowSnapshotBench() {
    }

    public static void main(String[] arguments) throws Exception {
        int sources = Integer.parseInt(arguments[0]);
        int interval = Integer.parseInt(arguments[1]);
        Path dir = Files.createTempDirectory("window-snapshot-bench");
        Instant end = Instant.parse("2026-12-01T12:00:00Z");
        Clock clock = Clock.fixed(end, ZoneOffset.UTC);
        var limits = new WindowLimits(3_600_000, 720, 1000);
        var window = new RecentWindow(limits, 256L << 20, clock);
        long points = 0;
        for (Instant t = end.minus(Duration.ofHours(1)); t.isBefore(end); t = t.plusSeconds(interval)) {
            var batch = new ArrayList<Measurement>();
            long minute = t.getEpochSecond() / interval;
            for (int s = 0; s < sources; s++) {
                batch.addAll(sourceAt("db-" + s, t, minute + s));
            }
            window.record(batch);
        }
        for (int s = 0; s < sources; s++) {
            var rows = new ArrayList<Measurement.Row>();
            for (int q = 0; q < 12; q++) {
                rows.add(new Measurement.Row(Map.of("query", "select o.id, o.amount, c.name from orders o join customers c"
                        + " on c.id = o.customer_id where o.at > $1 and c.region = $2 order by o.at desc limit $3 /* " + q
                        + " */"), Map.of("queryid", Long.toString(1_000_000L + q))));
            }
            window.record(List.of(new Measurement("db-" + s, "query_texts", end, rows, Map.of())));
        }
        points = window.picture().points();
        var snapshots = new WindowSnapshots(window, dir.resolve(WindowSnapshotFile.FILE_NAME), Duration.ofMinutes(1));
        long[] writes = new long[7];
        for (int i = 0; i < writes.length; i++) {
            long started = System.nanoTime();
            snapshots.write();
            writes[i] = System.nanoTime() - started;
        }
        long[] reads = new long[7];
        for (int i = 0; i < reads.length; i++) {
            var fresh = new RecentWindow(limits, 256L << 20, clock);
            long started = System.nanoTime();
            new WindowSnapshots(fresh, dir.resolve(WindowSnapshotFile.FILE_NAME), Duration.ofMinutes(1)).restore();
            reads[i] = System.nanoTime() - started;
        }
        java.util.Arrays.sort(writes);
        java.util.Arrays.sort(reads);
        System.out.printf("sources=%d interval=%ds series=%d points=%d window-memory=%.1fMB snapshot=%.2fMB"
                        + " write-median=%dms write-max=%dms restore-median=%dms%n",
                sources, interval, window.seriesCount(), points, window.budget().reserved() / 1e6,
                Files.size(dir.resolve(WindowSnapshotFile.FILE_NAME)) / 1e6, writes[3] / 1_000_000,
                writes[writes.length - 1] / 1_000_000, reads[3] / 1_000_000);
    }

    /**
     * One source's charted rows at one time: db_stats and the other one-row metrics (counters that
     * grow, gauges that move), 4 backends states, 2 lock modes, and 12 statements' 4 query_stats
     * columns (92 series in all, about the standard preset's).
     */
    private static List<Measurement> sourceAt(String source, Instant time, long tick) {
        var out = new ArrayList<Measurement>();
        out.add(one(source, "db_stats", time, values("xact_commit", 1000 * tick, "xact_rollback", tick, "blks_read",
                37 * tick, "blks_hit", 9000 * tick, "tup_returned", 5000 * tick, "tup_fetched", 4000 * tick,
                "tup_inserted", 20 * tick, "tup_updated", 10 * tick, "tup_deleted", tick, "temp_files", tick / 10,
                "temp_bytes", 1024 * tick, "deadlocks", 0, "conflicts", 0, "numbackends", 5 + tick % 7)));
        out.add(one(source, "db_size", time, values("size_b", 100_000_000 + 8192 * tick)));
        out.add(one(source, "backends", time, values("total", 10 + tick % 5, "max_connections", 100, "active",
                tick % 4, "idle", 6, "idleintransaction", tick % 2, "waiting", 0, "blocked", 0, "longest_tx_seconds",
                tick % 30, "longest_query_seconds", tick % 9, "max_xmin_age_tx", 100 + tick % 50)));
        out.add(one(source, "wal", time, values("wal_bytes", 65536 * tick, "wal_records", 300 * tick, "wal_fpi", tick)));
        out.add(one(source, "checkpointer", time, values("num_timed", tick / 5, "num_requested", 0,
                "buffers_written", 40 * tick, "wal_since_redo_b", 1_000_000 + tick % 1000)));
        out.add(one(source, "xmin_horizon", time, values("session_xmin_age", tick % 100, "session_xid_age", tick % 90,
                "prepared_xact_age", 0, "slot_xmin_age", 0)));
        out.add(one(source, "temp_files", time, values("current_bytes", 0, "temp_bytes_total", 1024 * tick)));
        var connections = new ArrayList<Measurement.Row>();
        for (String state : List.of("active", "idle", "idle in transaction", "waiting")) {
            connections.add(new Measurement.Row(values("processes", 1 + tick % 3), Map.of("state", state)));
        }
        out.add(new Measurement(source, "connections", time, connections, Map.of()));
        var locks = new ArrayList<Measurement.Row>();
        for (String mode : List.of("RowExclusiveLock", "AccessShareLock")) {
            locks.add(new Measurement.Row(values("waiting", tick % 2), Map.of("mode", mode)));
        }
        out.add(new Measurement(source, "locks", time, locks, Map.of()));
        var statements = new ArrayList<Measurement.Row>();
        for (int q = 0; q < 12; q++) {
            statements.add(new Measurement.Row(values("calls", 10 + (tick + q) % 20, "total_exec_time",
                    1.5 * ((tick + q) % 17), "rows", 30 + q, "shared_blks_read", (tick * q) % 11),
                    Map.of("queryid", Long.toString(1_000_000L + q), "dbname", "app", "user", "app", "toplevel", "true")));
        }
        out.add(new Measurement(source, "query_stats", time, statements, Map.of()));
        return out;
    }

    private static Measurement one(String source, String metric, Instant time, Map<String, Object> values) {
        return new Measurement(source, metric, time, List.of(new Measurement.Row(values, Map.of())), Map.of());
    }

    private static Map<String, Object> values(Object... pairs) {
        var values = new LinkedHashMap<String, Object>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put((String) pairs[i], pairs[i + 1]);
        }
        return values;
    }
}
