package io.pgharvest.window;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A source's indexes from the latest reads of {@code index_stats} (the 300 largest: size, scans,
 * validity, uniqueness, the statistics' age), {@code unused_indexes}, {@code invalid_indexes} and
 * {@code duplicate_indexes}, joined by schema, table and index. An index counts as unused when
 * unused_indexes lists it, or index_stats saw no scan of a valid index that is neither unique nor a
 * primary key; the statistics' age says since when, so a fresh reset is not taken for disuse.
 * pgharvest estimates no index bloat (only tables', in table_bloat_approx), so there is none here.
 */
final class IndexesView {

    static final String STATS = "index_stats";
    static final String UNUSED = "unused_indexes";
    static final String INVALID = "invalid_indexes";
    static final String DUPLICATE = "duplicate_indexes";

    /**
     * One index.
     *
     * @param statisticsAgeSeconds how long ago the database's statistics were reset; null when never (or not read)
     * @param duplicateOf the index it duplicates exactly, null when none
     * @param findings what is wrong with it, in words
     */
    record Index(String schema, String table, String name, Double sizeBytes, Double scans, Double lastScanSeconds,
            boolean unique, boolean primary, boolean valid, boolean unused, String duplicateOf,
            Double statisticsAgeSeconds, List<String> findings) {
    }

    private static final List<String> NAMES = List.of("schema", "table_name", "index_name");

    /** The columns this view reads of each metric: what the window keeps of their reads. */
    static final Map<String, ViewRows.Columns> COLUMNS = Map.of(
            STATS, ViewRows.Columns.of(NAMES, List.of("index_size_b", "idx_scan", "last_idx_scan_age_s", "is_unique",
                    "is_primary", "is_valid", "stats_reset_age_s")),
            UNUSED, ViewRows.Columns.of(NAMES, List.of("index_size_b", "stats_reset_age_s")),
            INVALID, ViewRows.Columns.of(NAMES, List.of("index_size_b")),
            DUPLICATE, ViewRows.Columns.of(List.of("schema", "table_name", "index_name", "duplicate_of"),
                    List.of("index_size_b")));

    private IndexesView() {
    }

    static List<Index> indexes(ViewRows stats, ViewRows unused, ViewRows invalid, ViewRows duplicate) {
        var byName = new LinkedHashMap<String, ViewRows.Row[]>();
        List<ViewRows> reads = List.of(stats, unused, invalid, duplicate);
        for (int i = 0; i < reads.size(); i++) {
            int slot = i;
            reads.get(i).rows().forEach(row -> byName.computeIfAbsent(key(row), k -> new ViewRows.Row[4])[slot] = row);
        }
        var indexes = new ArrayList<Index>(byName.size());
        byName.values().forEach(rows -> indexes.add(index(rows[0], rows[1], rows[2], rows[3])));
        return indexes;
    }

    private static String key(ViewRows.Row row) {
        return row.textOrEmpty("schema") + "\u0000" + row.textOrEmpty("table_name") + "\u0000"
                + row.textOrEmpty("index_name");
    }

    private static Index index(ViewRows.Row s, ViewRows.Row u, ViewRows.Row i, ViewRows.Row d) {
        ViewRows.Row any = s != null ? s : u != null ? u : i != null ? i : d;
        boolean unique = s != null && (s.flag("is_unique"));
        boolean primary = s != null && s.flag("is_primary");
        boolean valid = i == null && (s == null || s.number("is_valid") == null || s.flag("is_valid"));
        Double scans = s == null ? null : s.number("idx_scan");
        boolean unused = u != null || (s != null && valid && !unique && !primary && scans != null && scans == 0);
        Double statisticsAge = u != null && u.number("stats_reset_age_s") != null ? u.number("stats_reset_age_s")
                : s == null ? null : s.number("stats_reset_age_s");
        var findings = new ArrayList<String>();
        if (unused) {
            findings.add(statisticsAge == null ? "never scanned since the statistics began (never reset)"
                    : "never scanned since the statistics were reset " + Math.round(statisticsAge) + " s ago");
        }
        if (!valid) {
            findings.add("invalid: serves no query, still costs writes (a failed CREATE INDEX CONCURRENTLY or REINDEX)");
        }
        String duplicateOf = d == null ? null : d.text("duplicate_of");
        if (duplicateOf != null) {
            findings.add("duplicates " + duplicateOf);
        }
        Double size = s != null ? s.number("index_size_b") : any.number("index_size_b");
        return new Index(any.textOrEmpty("schema"), any.textOrEmpty("table_name"),
                any.textOrEmpty("index_name"), size, scans, s == null ? null : s.number("last_idx_scan_age_s"),
                unique, primary, valid, unused, duplicateOf, statisticsAge, findings);
    }
}
