package io.pgharvest.serverlog;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Follows one source's server log and counts its records by severity, for the source's database
 * (pgwatch's keys {@code error}, {@code warning}, ...) and for the whole server ({@code *_total}),
 * since the previous collection.
 *
 * <p>Incremental: it remembers, per file, the offset up to which complete records were counted,
 * and reads only what was appended since (at most {@value #MAX_READ_PER_TICK} bytes per tick; a
 * bigger backlog is read over the next ticks). A file that appears (rotation) is read from its
 * start, a file that shrank (truncated on rotation) from its start again, a file that is gone is
 * forgotten. On its first collection it starts at the end of every file, as pgwatch does: what was
 * logged before pgharvest watched is not counted, and the first measurement is all zeros.
 *
 * <p>Where from: a server on this machine whose log directory this process can read is read from
 * the file system; otherwise through SQL with {@code pg_ls_logdir()} and
 * {@code pg_read_binary_file(path, offset, length)}, which need pg_monitor and
 * pg_read_server_files (or EXECUTE granted on that function). csvlog is read when
 * {@code log_destination} has it, else jsonlog. Severities are counted as the server writes them in
 * English (lc_messages C or en); translated ones are not recognised.
 */
final class LogTail implements NativeMetric.Collector {

    static final List<String> SEVERITIES = List.of("debug", "info", "notice", "warning", "error", "log", "fatal",
            "panic");
    static final int MAX_READ_PER_TICK = 8 << 20;
    private static final int CHUNK = 1 << 20;
    private static final String SETTINGS_SQL = """
            select /* pgharvest */ current_setting('logging_collector') as logging_collector,
                   current_setting('log_destination') as log_destination,
                   current_setting('log_directory') as log_directory,
                   current_setting('data_directory') as data_directory""";
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private final Map<String, Long> offsets = new HashMap<>();
    private boolean started;
    private String watching;

    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        Map<String, Object> settings;
        try {
            settings = target.sql().query(SETTINGS_SQL).getFirst();
        } catch (SQLException e) {
            throw privilege(e, "reading the log settings (log_directory, data_directory) needs pg_monitor"
                    + " or pg_read_all_settings");
        }
        if (!"on".equals(settings.get("logging_collector"))) {
            throw new NativeMetric.Unavailable("logging_collector is off: the server writes no log files");
        }
        String destination = String.valueOf(settings.get("log_destination")).toLowerCase(Locale.ROOT);
        LogFormat format = destination.contains("csvlog") ? LogFormat.CSV
                : destination.contains("jsonlog") ? LogFormat.JSON : null;
        if (format == null) {
            throw new NativeMetric.Unavailable("log_destination '" + destination + "' has neither csvlog nor jsonlog");
        }
        LogFiles files = LogFiles.open(target, (String) settings.get("log_directory"), (String) settings.get("data_directory"));
        if (!files.describe().equals(watching)) {
            started = false; // another place or way of reading: start at the end again
            offsets.clear();
            watching = files.describe();
        }
        var counts = new Counts(target.database());
        try {
            follow(files, format, counts);
        } catch (SQLException e) {
            throw privilege(e, "reading the log through SQL needs pg_monitor (pg_ls_logdir) and"
                    + " pg_read_server_files or EXECUTE on pg_read_binary_file(text, bigint, bigint, boolean)");
        }
        return List.of(new Measurement.Row(counts.values(), Map.of()));
    }

    private void follow(LogFiles files, LogFormat format, Counts counts) throws Exception {
        List<LogFiles.LogFile> listed = files.list(format.suffix());
        Set<String> present = new HashSet<>();
        long budget = MAX_READ_PER_TICK;
        for (LogFiles.LogFile file : listed) {
            present.add(file.name());
            if (!started) {
                offsets.put(file.name(), file.size());
                continue;
            }
            long offset = offsets.getOrDefault(file.name(), 0L);
            if (file.size() < offset) {
                offset = 0; // truncated and rewritten (log_truncate_on_rotation)
            }
            while (offset < file.size() && budget > 0) {
                int length = (int) Math.min(Math.min(CHUNK, budget), file.size() - offset);
                byte[] chunk = files.read(file.name(), offset, length);
                if (chunk.length == 0) {
                    break;
                }
                int consumed = format.scan(chunk, chunk.length, counts::count);
                if (consumed == 0 && chunk.length == CHUNK) {
                    consumed = chunk.length; // one record longer than a chunk: skip it rather than stall
                }
                budget -= chunk.length;
                offset += consumed;
                if (consumed == 0) {
                    break; // only an incomplete record is left: read it again once it is complete
                }
            }
            offsets.put(file.name(), offset);
        }
        offsets.keySet().retainAll(present);
        started = true;
    }

    private static Exception privilege(SQLException e, String what) {
        if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
            return new NativeMetric.Unavailable(what + " [SQLState 42501]: " + e.getMessage());
        }
        return e;
    }

    /** Records of one tick by severity, for the source's database and in all. */
    private static final class Counts {

        private final String database;
        private final Map<String, long[]> bySeverity = new HashMap<>();

        Counts(String database) {
            this.database = database;
        }

        void count(String severity, String recordDatabase) {
            String key = severity.startsWith("DEBUG") ? "debug" : severity.toLowerCase(Locale.ROOT);
            long[] pair = bySeverity.get(key);
            if (pair == null) {
                if (!SEVERITIES.contains(key)) {
                    return;
                }
                pair = new long[2];
                bySeverity.put(key, pair);
            }
            pair[1]++;
            if (database != null && database.equals(recordDatabase)) {
                pair[0]++;
            }
        }

        Map<String, Object> values() {
            var values = new LinkedHashMap<String, Object>();
            for (String severity : SEVERITIES) {
                long[] pair = bySeverity.getOrDefault(severity, new long[2]);
                values.put(severity, pair[0]);
                values.put(severity + "_total", pair[1]);
            }
            return values;
        }
    }
}
