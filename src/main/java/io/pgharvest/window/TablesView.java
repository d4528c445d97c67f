package io.pgharvest.window;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A source's tables and their vacuum state from the latest reads of {@code table_stats} (size, tuples,
 * vacuum and analyze ages and counts, freeze age of the 300 largest) and {@code table_maintenance}
 * (autovacuum's thresholds for the 50 with the most dead tuples, whether each is due, the freeze
 * limit), joined by schema and table. A number the reads lack is null: never guessed.
 */
final class TablesView {

    static final String STATS = "table_stats";
    static final String MAINTENANCE = "table_maintenance";

    /**
     * One table.
     *
     * @param deadPercent dead tuples as a share of live and dead, in percent
     * @param vacuumDue whether autovacuum's dead-tuple, insert or freeze threshold is passed (null: thresholds not read)
     * @param reasons why vacuum (or analyze) is due, in words with the numbers
     * @param freezeMaxAge the table's autovacuum_freeze_max_age (its own storage parameter or the server's)
     */
    record Table(String schema, String name, Double sizeBytes, Double totalSizeBytes, Double liveTuples,
            Double deadTuples, Double deadPercent, Double lastVacuumSeconds, Double lastAnalyzeSeconds,
            Double vacuumCount, Double autovacuumCount, Double analyzeCount, Double autoanalyzeCount, Double freezeAge,
            Double freezeMaxAge, Boolean vacuumDue, Boolean analyzeDue, Boolean autovacuumEnabled, List<String> reasons) {
    }

    /** The columns this view reads of each metric: what the window keeps of their reads. */
    static final Map<String, ViewRows.Columns> COLUMNS = Map.of(
            STATS, ViewRows.Columns.of(List.of("schema", "table_name"), List.of("table_size_b", "total_relation_size_b",
                    "n_live_tup", "n_dead_tup", "seconds_since_last_vacuum", "seconds_since_last_analyze", "vacuum_count",
                    "autovacuum_count", "analyze_count", "autoanalyze_count", "tx_freeze_age")),
            MAINTENANCE, ViewRows.Columns.of(List.of("schema", "table_name"), List.of("n_live_tup", "n_dead_tup",
                    "dead_pct", "freeze_age", "freeze_max_age", "vacuum_due", "vacuum_threshold", "insert_vacuum_due",
                    "n_ins_since_vacuum", "insert_vacuum_threshold", "analyze_due", "n_mod_since_analyze",
                    "analyze_threshold", "autovacuum_enabled", "last_vacuum_age_s", "last_analyze_age_s")));

    private TablesView() {
    }

    static List<Table> tables(ViewRows stats, ViewRows maintenance) {
        var byName = new LinkedHashMap<String, ViewRows.Row[]>();
        stats.rows().forEach(row -> byName.computeIfAbsent(key(row), k -> new ViewRows.Row[2])[0] = row);
        maintenance.rows().forEach(row -> byName.computeIfAbsent(key(row), k -> new ViewRows.Row[2])[1] = row);
        var tables = new ArrayList<Table>(byName.size());
        for (Map.Entry<String, ViewRows.Row[]> entry : byName.entrySet()) {
            tables.add(table(entry.getValue()[0], entry.getValue()[1]));
        }
        return tables;
    }

    private static String key(ViewRows.Row row) {
        return row.textOrEmpty("schema") + "\u0000" + row.textOrEmpty("table_name");
    }

    private static Table table(ViewRows.Row s, ViewRows.Row m) {
        ViewRows.Row any = s != null ? s : m;
        Double live = first(s, m, "n_live_tup");
        Double dead = first(s, m, "n_dead_tup");
        Double deadPercent = m != null && m.number("dead_pct") != null ? m.number("dead_pct")
                : live != null && dead != null && live + dead > 0 ? Math.round(1000.0 * dead / (live + dead)) / 10.0 : null;
        Double freezeAge = s != null && s.number("tx_freeze_age") != null ? s.number("tx_freeze_age")
                : m == null ? null : m.number("freeze_age");
        Double freezeMaxAge = m == null ? null : m.number("freeze_max_age");
        var reasons = new ArrayList<String>();
        Boolean vacuumDue = null;
        Boolean analyzeDue = null;
        if (m != null) {
            vacuumDue = false;
            if (m.flag("vacuum_due")) {
                vacuumDue = true;
                reasons.add("dead tuples " + whole(dead) + " over the threshold " + whole(m.number("vacuum_threshold")));
            }
            if (m.flag("insert_vacuum_due")) {
                vacuumDue = true;
                reasons.add("inserts since the last vacuum " + whole(m.number("n_ins_since_vacuum"))
                        + " over the threshold " + whole(m.number("insert_vacuum_threshold")));
            }
            if (freezeAge != null && freezeMaxAge != null && freezeAge > freezeMaxAge) {
                vacuumDue = true;
                reasons.add("freeze age " + whole(freezeAge) + " over autovacuum_freeze_max_age " + whole(freezeMaxAge));
            }
            analyzeDue = m.flag("analyze_due");
            if (analyzeDue) {
                reasons.add("analyze: changes since the last analyze " + whole(m.number("n_mod_since_analyze"))
                        + " over the threshold " + whole(m.number("analyze_threshold")));
            }
        }
        Boolean autovacuum = m == null || m.number("autovacuum_enabled") == null ? null
                : m.flag("autovacuum_enabled");
        if (Boolean.FALSE.equals(autovacuum)) {
            reasons.add("autovacuum is off for this table");
        }
        return new Table(any.textOrEmpty("schema"), any.textOrEmpty("table_name"), num(s, "table_size_b"),
                num(s, "total_relation_size_b"), live, dead, deadPercent,
                first(s, m, "seconds_since_last_vacuum", "last_vacuum_age_s"),
                first(s, m, "seconds_since_last_analyze", "last_analyze_age_s"), num(s, "vacuum_count"),
                num(s, "autovacuum_count"), num(s, "analyze_count"), num(s, "autoanalyze_count"), freezeAge, freezeMaxAge,
                vacuumDue, analyzeDue, autovacuum, reasons);
    }

    private static Double num(ViewRows.Row row, String column) {
        return row == null ? null : row.number(column);
    }

    private static Double first(ViewRows.Row s, ViewRows.Row m, String column) {
        return first(s, m, column, column);
    }

    /** The stats' column when read, else the maintenance read's. */
    private static Double first(ViewRows.Row s, ViewRows.Row m, String statsColumn, String maintenanceColumn) {
        Double value = num(s, statsColumn);
        return value != null ? value : num(m, maintenanceColumn);
    }

    private static String whole(Double value) {
        return value == null ? "?" : String.format(Locale.ROOT, "%,d", Math.round(value));
    }
}
