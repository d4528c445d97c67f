package io.pgharvest.sink.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * Creates what a batch needs before it is copied: the metric table, the time partitions its rows
 * (and the next {@code partitionsAhead} intervals) fall into, and the dashboards' listing rows.
 * All of it runs inside the caller's transaction, serialized per metric across pgharvest
 * instances by an advisory lock, and is remembered only once the caller reports the commit:
 * a rolled-back batch leaves no false memories. Not thread-safe: one per connection user.
 */
final class MetricTables {

    /** Advisory lock class for metric DDL ("pghv"). */
    private static final int LOCK_CLASS = 0x70676876;
    static final String METRIC_COMMENT = "pgwatch-generated-metric-lvl";
    static final String PARTITION_COMMENT = "pgwatch-generated-metric-time-lvl";

    private final PartitionLayout layout;
    private final int partitionsAhead;
    private final Set<String> tables = new HashSet<>();
    private final Map<String, NavigableMap<Instant, Instant>> partitions = new HashMap<>();
    private final Set<List<String>> listed = new HashSet<>();

    /** What a transaction created or confirmed; applied by {@link #committed}. */
    static final class Changes {
        private final Set<String> tables = new HashSet<>();
        private final Map<String, NavigableMap<Instant, Instant>> partitions = new HashMap<>();
        private final Set<List<String>> listed = new HashSet<>();
        private int createdPartitions;

        int createdPartitions() {
            return createdPartitions;
        }
    }

    MetricTables(PartitionLayout layout, int partitionsAhead) {
        this.layout = layout;
        this.partitionsAhead = partitionsAhead;
    }

    /**
     * Ensures table, partitions and listing rows for rows at {@code times} of each table.
     *
     * @param timesByTable table name to the collection times of its rows in this batch
     * @param sources table name to the source names (dbname) writing to it in this batch
     */
    Changes prepare(Connection c, Map<String, Set<Instant>> timesByTable, Map<String, Set<String>> sources,
            Instant now) throws SQLException {
        var changes = new Changes();
        var needed = new TreeMap<String, Set<Instant>>();
        timesByTable.forEach((table, times) -> {
            Set<Instant> starts = neededStarts(times, now);
            if (!tables.contains(table) || !covered(partitions.get(table), starts)) {
                needed.put(table, starts);
            }
        });
        if (!needed.isEmpty()) {
            createAll(c, needed, changes);
        }
        insertListing(c, sources, changes);
        return changes;
    }

    /**
     * The tables and partitions of {@code needed} in five round trips however many they are (the
     * first batches after start need a table per metric, seven round trips each one at a time):
     * their locks in name order (two writers never wait for each other crosswise), then
     * {@link #createLocked}.
     */
    private void createAll(Connection c, NavigableMap<String, Set<Instant>> needed, Changes changes)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_xact_lock(?, hashtext(t))"
                + " FROM unnest(?::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n")) {
            s.setInt(1, LOCK_CLASS);
            s.setArray(2, c.createArrayOf("text", needed.keySet().toArray()));
            s.executeQuery().close();
        }
        createLocked(c, needed, changes);
    }

    /**
     * Creates the tables of {@code needed} and their partitions at the given starts, in four round
     * trips: which tables are missing, those tables, the partitions there are, the missing
     * partitions. The caller holds the tables' locks.
     */
    private void createLocked(Connection c, Map<String, Set<Instant>> needed, Changes changes) throws SQLException {
        Array names = c.createArrayOf("text", needed.keySet().toArray());
        var ddl = new StringBuilder();
        try (PreparedStatement s = c.prepareStatement("SELECT t FROM unnest(?::text[]) AS t"
                + " WHERE to_regclass('public.' || quote_ident(t)) IS NULL")) {
            s.setArray(1, names);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ddl.append(createTableSql(rs.getString(1)));
                }
            }
        }
        execute(c, ddl);
        Map<String, NavigableMap<Instant, Instant>> existing = loadPartitions(c, names);
        needed.forEach((table, starts) -> {
            NavigableMap<Instant, Instant> ranges = existing.computeIfAbsent(table, t -> new TreeMap<>());
            for (Instant start : starts) {
                for (Instant[] gap : gaps(ranges, start, start.plus(layout.interval()))) {
                    ddl.append(partitionSql(table, gap[0], gap[1]));
                    ranges.put(gap[0], gap[1]);
                    changes.createdPartitions++;
                }
            }
            changes.tables.add(table);
            changes.partitions.put(table, ranges);
        });
        execute(c, ddl);
    }

    /** Runs the statements of {@code sql} in one round trip and empties it; nothing for an empty one. */
    private static void execute(Connection c, StringBuilder sql) throws SQLException {
        if (sql.isEmpty()) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute(sql.toString());
        }
        sql.setLength(0);
    }

    /**
     * Ensures each table and its partitions ahead of {@code now}, one short transaction per table;
     * for the background helpers (table creation, maintenance). Never waits for a table's lock: a
     * table another transaction is preparing (the writer, another instance) is added to
     * {@code busy} and left to that transaction, so a helper never holds the writer up by queueing
     * behind it, and its caller tries the busy tables again later.
     */
    int createAhead(Connection c, Collection<String> allTables, Instant now, Collection<String> busy)
            throws SQLException {
        int created = 0;
        for (String table : allTables) {
            if (!tryLock(c, table)) {
                c.commit();
                busy.add(table);
                continue;
            }
            var changes = new Changes();
            createLocked(c, Map.of(table, neededStarts(Set.of(), now)), changes);
            c.commit();
            committed(changes);
            created += changes.createdPartitions;
        }
        return created;
    }

    void committed(Changes changes) {
        tables.addAll(changes.tables);
        partitions.putAll(changes.partitions);
        listed.addAll(changes.listed);
    }

    /** Forgets everything, e.g. after a failed batch: partitions may have been dropped underneath. */
    void forget() {
        tables.clear();
        partitions.clear();
        listed.clear();
    }

    private Set<Instant> neededStarts(Set<Instant> times, Instant now) {
        var starts = new HashSet<Instant>();
        times.forEach(time -> starts.add(layout.start(time)));
        Instant current = layout.start(now);
        for (int i = 0; i <= partitionsAhead; i++) {
            starts.add(current.plus(layout.interval().multipliedBy(i)));
        }
        return starts;
    }

    private boolean covered(NavigableMap<Instant, Instant> existing, Set<Instant> starts) {
        if (existing == null) {
            return false;
        }
        for (Instant start : starts) {
            if (!gaps(existing, start, start.plus(layout.interval())).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Sub-ranges of [from, to) no partition covers (several only after the interval changed). */
    private static List<Instant[]> gaps(NavigableMap<Instant, Instant> existing, Instant from, Instant to) {
        var gaps = new ArrayList<Instant[]>();
        Instant cursor = from;
        var before = existing.floorEntry(cursor);
        if (before != null && before.getValue().isAfter(cursor)) {
            cursor = before.getValue();
        }
        for (var next : existing.subMap(cursor, true, to, false).entrySet()) {
            if (next.getKey().isAfter(cursor)) {
                gaps.add(new Instant[] {cursor, next.getKey()});
            }
            if (next.getValue().isAfter(cursor)) {
                cursor = next.getValue();
            }
        }
        if (cursor.isBefore(to)) {
            gaps.add(new Instant[] {cursor, to});
        }
        return gaps;
    }

    private String partitionSql(String table, Instant from, Instant to) {
        String partition = "subpartitions." + PartitionLayout.quoteIdentifier(layout.partitionName(table, from));
        return "CREATE TABLE " + partition + " PARTITION OF public." + PartitionLayout.quoteIdentifier(table)
                + " FOR VALUES FROM ('" + PartitionLayout.boundLiteral(from) + "') TO ('"
                + PartitionLayout.boundLiteral(to) + "');\n"
                + "COMMENT ON TABLE " + partition + " IS '" + PARTITION_COMMENT + "';\n";
    }

    private static String createTableSql(String table) {
        String qualified = "public." + PartitionLayout.quoteIdentifier(table);
        return "CREATE TABLE " + qualified
                + " (LIKE admin.metrics_template INCLUDING DEFAULTS INCLUDING INDEXES) PARTITION BY RANGE (time);\n"
                + "COMMENT ON TABLE " + qualified + " IS '" + METRIC_COMMENT + "';\n";
    }

    private static boolean tryLock(Connection c, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_xact_lock(?, hashtext(?))")) {
            s.setInt(1, LOCK_CLASS);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** The time ranges of the partitions of each table named in {@code tables} that has any. */
    private static Map<String, NavigableMap<Instant, Instant>> loadPartitions(Connection c, Array tables)
            throws SQLException {
        var existing = new HashMap<String, NavigableMap<Instant, Instant>>();
        try (PreparedStatement s = c.prepareStatement(
                "SELECT metric, range_start, range_end FROM admin.metric_time_partitions WHERE metric = ANY (?)")) {
            s.setArray(1, tables);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Timestamp start = rs.getTimestamp(2);
                    Timestamp end = rs.getTimestamp(3);
                    if (start != null && end != null) {
                        existing.computeIfAbsent(rs.getString(1), t -> new TreeMap<>())
                                .put(start.toInstant(), end.toInstant());
                    }
                }
            }
        }
        return existing;
    }

    private void insertListing(Connection c, Map<String, Set<String>> sources, Changes changes) throws SQLException {
        var dbnames = new ArrayList<String>();
        var metrics = new ArrayList<String>();
        sources.forEach((table, names) -> names.forEach(dbname -> {
            List<String> pair = List.of(dbname, table);
            if (!listed.contains(pair)) {
                dbnames.add(dbname);
                metrics.add(table);
                changes.listed.add(pair);
            }
        }));
        if (dbnames.isEmpty()) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO admin.all_distinct_dbname_metrics (dbname, metric) "
                + "SELECT * FROM unnest(?::text[], ?::text[]) ON CONFLICT DO NOTHING")) {
            s.setArray(1, c.createArrayOf("text", dbnames.toArray()));
            s.setArray(2, c.createArrayOf("text", metrics.toArray()));
            s.executeUpdate();
        }
    }
}
