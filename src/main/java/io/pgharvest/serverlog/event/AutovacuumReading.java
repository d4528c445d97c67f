package io.pgharvest.serverlog.event;

import io.pgharvest.serverlog.entry.LogEntry;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Autovacuum's and autoanalyze's report of a run ({@code log_autovacuum_min_duration}): the table,
 * what was removed and what remains, the dead tuples not yet removable and the xmin horizon that
 * holds them, buffer and WAL usage, the elapsed time. Each line is read by its own label, so the
 * lines one version adds or renames (14's {@code oldest xmin}, 15's {@code removable cutoff},
 * 17's {@code reads} for {@code misses}) leave the others readable.
 */
final class AutovacuumReading {

    /**
     * The server writes the name as {@code "db.schema.table"} without quoting its parts, so a name
     * may hold quotes and dots: the name runs to the last quote of the first line (nothing after it
     * there has one: {@code ": index scans: 1"}, or the end of an analyze's line).
     */
    private static final Pattern HEAD = Pattern.compile(
            "^automatic (aggressive )?(vacuum|analyze)( to prevent wraparound)? of table \"(.*)\"");
    private static final Pattern INDEX_SCANS = Pattern.compile("index scans: (\\d+)");
    private static final Pattern PAGES = Pattern.compile("pages: (\\d+) removed, (\\d+) remain");
    private static final Pattern TUPLES = Pattern.compile(
            "tuples: (\\d+) removed, (\\d+) remain, (\\d+) are dead but not yet removable(?:, oldest xmin: (\\d+))?");
    private static final Pattern CUTOFF = Pattern.compile("removable cutoff: (\\d+)");
    private static final Pattern BUFFERS = Pattern.compile("buffer usage: (\\d+) hits, (\\d+) (?:misses|reads), (\\d+) dirtied");
    private static final Pattern WAL = Pattern.compile("WAL usage: (\\d+) records, (\\d+) full page images, (\\d+) bytes");
    private static final Pattern ELAPSED = Pattern.compile("elapsed: ([0-9.]+) s");

    private AutovacuumReading() {
    }

    static Optional<LogEvent> read(LogEntry entry) {
        String message = entry.message();
        if (message == null || !message.startsWith("automatic ")) {
            return Optional.empty();
        }
        Matcher head = HEAD.matcher(message);
        if (!head.find()) {
            return Optional.empty();
        }
        String qualified = head.group(4); // "db.schema.table"
        String known = entry.database();
        int dot = known != null && qualified.startsWith(known + ".") ? known.length() : qualified.indexOf('.');
        String table = dot < 0 ? qualified : qualified.substring(dot + 1);
        String database = dot < 0 ? known : qualified.substring(0, dot);
        Matcher tuples = TUPLES.matcher(message);
        Matcher cutoff = CUTOFF.matcher(message);
        String horizon = tuples.find() && tuples.group(4) != null ? tuples.group(4)
                : cutoff.find() ? cutoff.group(1) : null;
        Matcher pages = PAGES.matcher(message);
        Matcher buffers = BUFFERS.matcher(message);
        Matcher wal = WAL.matcher(message);
        var row = new EventRow(entry).put("dbname", database).tag("table", table)
                .put("kind", head.group(2))
                .put("aggressive", head.group(1) != null)
                .put("wraparound", head.group(3) != null)
                .put("table_name", table)
                .number("index_scans", INDEX_SCANS.matcher(message), 1)
                .number("pages_removed", pages, 1)
                .number("pages_remaining", pages, 2)
                .number("tuples_removed", tuples, 1)
                .number("tuples_remaining", tuples, 2)
                .number("tuples_dead_not_removable", tuples, 3)
                .put("xmin_horizon", horizon)
                .number("buffer_hits", buffers, 1)
                .number("buffer_misses", buffers, 2)
                .number("buffer_dirtied", buffers, 3)
                .number("wal_records", wal, 1)
                .number("wal_fpi", wal, 2)
                .number("wal_bytes", wal, 3)
                .decimal("elapsed_s", ELAPSED.matcher(message), 1);
        return Optional.of(row.as(LogCategory.AUTOVACUUM));
    }
}
