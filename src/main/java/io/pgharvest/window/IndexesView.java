package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

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

    private IndexesView() {
    }

    static List<Index> indexes(List<Measurement.Row> stats, List<Measurement.Row> unused, List<Measurement.Row> invalid,
            List<Measurement.Row> duplicate) {
        var byName = new LinkedHashMap<String, Measurement.Row[]>();
        List<List<Measurement.Row>> reads = List.of(stats, unused, invalid, duplicate);
        for (int i = 0; i < reads.size(); i++) {
            int slot = i;
            reads.get(i).forEach(row -> byName.computeIfAbsent(key(row), k -> new Measurement.Row[4])[slot] = row);
        }
        var indexes = new ArrayList<Index>(byName.size());
        byName.values().forEach(rows -> indexes.add(index(rows[0], rows[1], rows[2], rows[3])));
        return indexes;
    }

    private static String key(Measurement.Row row) {
        return Cells.textOrEmpty(row, "schema") + "\u0000" + Cells.textOrEmpty(row, "table_name") + "\u0000"
                + Cells.textOrEmpty(row, "index_name");
    }

    private static Index index(Measurement.Row s, Measurement.Row u, Measurement.Row i, Measurement.Row d) {
        Measurement.Row any = s != null ? s : u != null ? u : i != null ? i : d;
        boolean unique = s != null && (Cells.flag(s, "is_unique"));
        boolean primary = s != null && Cells.flag(s, "is_primary");
        boolean valid = i == null && (s == null || Cells.number(s, "is_valid") == null || Cells.flag(s, "is_valid"));
        Double scans = s == null ? null : Cells.number(s, "idx_scan");
        boolean unused = u != null || (s != null && valid && !unique && !primary && scans != null && scans == 0);
        Double statisticsAge = u != null && Cells.number(u, "stats_reset_age_s") != null ? Cells.number(u, "stats_reset_age_s")
                : s == null ? null : Cells.number(s, "stats_reset_age_s");
        var findings = new ArrayList<String>();
        if (unused) {
            findings.add(statisticsAge == null ? "never scanned since the statistics began (never reset)"
                    : "never scanned since the statistics were reset " + Math.round(statisticsAge) + " s ago");
        }
        if (!valid) {
            findings.add("invalid: serves no query, still costs writes (a failed CREATE INDEX CONCURRENTLY or REINDEX)");
        }
        String duplicateOf = d == null ? null : Cells.text(d, "duplicate_of");
        if (duplicateOf != null) {
            findings.add("duplicates " + duplicateOf);
        }
        Double size = s != null ? Cells.number(s, "index_size_b") : Cells.number(any, "index_size_b");
        return new Index(Cells.textOrEmpty(any, "schema"), Cells.textOrEmpty(any, "table_name"),
                Cells.textOrEmpty(any, "index_name"), size, scans, s == null ? null : Cells.number(s, "last_idx_scan_age_s"),
                unique, primary, valid, unused, duplicateOf, statisticsAge, findings);
    }
}
