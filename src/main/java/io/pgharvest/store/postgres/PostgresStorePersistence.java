package io.pgharvest.store.postgres;

import io.pgharvest.model.StoreTable;
import io.pgharvest.pgwatch.format.ItemJson;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import io.pgharvest.store.StoreIndexFile.ItemStamp;
import io.pgharvest.store.StoreIndexFile;
import io.pgharvest.store.StoreUnavailableException;
import io.pgharvest.store.state.BuiltInCatalog;
import io.pgharvest.store.state.ItemFingerprints;
import io.pgharvest.store.state.StorePersistence;
import io.pgharvest.store.state.StoreState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration database's tables ({@code store_index}, {@code store_item}; see
 * {@code db/store-postgres}). A write is one transaction that holds the {@code store_index} row
 * lock from {@link #begin} to {@link #persist}: writers on all instances are serialized, and a
 * writer always validates against the latest committed state. The commit notifies channel
 * {@value #CHANNEL} with the new index.
 */
final class PostgresStorePersistence implements StorePersistence {

    static final String CHANNEL = "pgharvest_store";
    private static final Logger log = LoggerFactory.getLogger(PostgresStorePersistence.class);

    private final DataSource dataSource;
    private final String maskedUrl;
    private final PgwatchYaml yaml = new PgwatchYaml();
    private final ItemJson json = new ItemJson();
    private final ItemFingerprints fingerprints = new ItemFingerprints(yaml);
    private final BuiltInCatalog builtIns = BuiltInCatalog.load(yaml);
    /** The transaction of the write in progress; only the store's write lock holder touches it. */
    private Connection writing;

    PostgresStorePersistence(DataSource dataSource, String maskedUrl) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
    }

    /** Reads the store and, when this instance's built-in catalog changed items, records new stamps. */
    @Override
    public StoreState load() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                Rows rows = readRows(c, true);
                StoreState unstamped = unstamped(rows);
                StoreIndexFile recorded = rows.recorded();
                StoreState state = fingerprints.stamp(unstamped, recorded);
                if (state.index() != recorded.index()) {
                    write(c, rows.stamps(), rows.userItems(), state);
                }
                c.commit();
                log.info("Configuration store in {}: {} sources, {} metrics, {} presets, index {}", maskedUrl,
                        state.sources().size(), state.snapshot().metrics().size(),
                        state.snapshot().presets().size(), state.index());
                return state;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw unavailable("cannot read the configuration store", e);
        }
    }

    /** The latest committed state, read in one snapshot; for instances that did not write it. */
    StoreState read() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                return recordedState(readRows(c, false));
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw unavailable("cannot read the configuration store", e);
        }
    }

    /** The store index committed last. */
    static long committedIndex(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT store_index FROM store_index")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public StoreState begin(StoreState published) {
        try {
            writing = dataSource.getConnection();
            writing.setAutoCommit(false);
            long index;
            try (Statement s = writing.createStatement();
                 ResultSet rs = s.executeQuery("SELECT store_index FROM store_index FOR UPDATE")) {
                rs.next();
                index = rs.getLong(1);
            }
            return index == published.index() ? published : recordedState(readRows(writing, false));
        } catch (SQLException e) {
            abandon();
            throw unavailable("cannot write to the configuration store; nothing was changed", e);
        }
    }

    @Override
    public void persist(StoreState current, StoreState next, Set<StoreTable> tables) {
        try {
            var before = new EnumMap<StoreTable, Map<String, ItemStamp>>(current.stamps());
            var users = new EnumMap<StoreTable, Map<String, ?>>(StoreTable.class);
            for (StoreTable table : StoreTable.values()) {
                users.put(table, userItems(current, table));
            }
            write(writing, before, users, next);
            writing.commit();
        } catch (SQLException e) {
            throw unavailable("cannot write to the configuration store; nothing was changed", e);
        } finally {
            abandon();
        }
    }

    @Override
    public void abandon() {
        if (writing == null) {
            return;
        }
        try (Connection c = writing) {
            writing = null;
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            log.debug("Rolling back an unfinished store write failed: {}", e.getMessage());
        }
    }

    /** Writes every item whose stamp or body differs from {@code before}/{@code beforeUsers}, the indexes, and the notification. */
    private void write(Connection c, Map<StoreTable, Map<String, ItemStamp>> before,
            Map<StoreTable, ? extends Map<String, ?>> beforeUsers, StoreState next) throws SQLException {
        try (PreparedStatement upsert = c.prepareStatement("""
                INSERT INTO store_item (item_table, name, body, modify_index, fingerprint)
                VALUES (?, ?, ?::jsonb, ?, ?)
                ON CONFLICT (item_table, name) DO UPDATE
                SET body = excluded.body, modify_index = excluded.modify_index, fingerprint = excluded.fingerprint""");
             PreparedStatement delete = c.prepareStatement(
                     "DELETE FROM store_item WHERE item_table = ? AND name = ?")) {
            for (StoreTable table : StoreTable.values()) {
                Map<String, ItemStamp> old = before.getOrDefault(table, Map.of());
                Map<String, ItemStamp> now = next.stamps().get(table);
                Map<String, ?> oldUsers = beforeUsers.get(table);
                Map<String, ?> nowUsers = userItems(next, table);
                var names = new HashSet<>(old.keySet());
                names.addAll(now.keySet());
                for (String name : names) {
                    ItemStamp stamp = now.get(name);
                    if (stamp == null) {
                        delete.setString(1, StoreState.key(table));
                        delete.setString(2, name);
                        delete.addBatch();
                    } else if (!stamp.equals(old.get(name)) || !Objects.equals(nowUsers.get(name), oldUsers.get(name))) {
                        Object user = nowUsers.get(name);
                        upsert.setString(1, StoreState.key(table));
                        upsert.setString(2, name);
                        upsert.setString(3, user == null ? null : json.write(table, user));
                        upsert.setLong(4, stamp.modifyIndex());
                        upsert.setString(5, stamp.fingerprint());
                        upsert.addBatch();
                    }
                }
            }
            delete.executeBatch();
            upsert.executeBatch();
        }
        try (PreparedStatement index = c.prepareStatement("""
                UPDATE store_index SET store_index = ?, sources_index = ?, metrics_index = ?, presets_index = ?""");
             PreparedStatement notify = c.prepareStatement("SELECT pg_notify('" + CHANNEL + "', ?)")) {
            index.setLong(1, next.index());
            index.setLong(2, next.tableIndexes().get(StoreTable.SOURCES));
            index.setLong(3, next.tableIndexes().get(StoreTable.METRICS));
            index.setLong(4, next.tableIndexes().get(StoreTable.PRESETS));
            index.executeUpdate();
            notify.setString(1, Long.toString(next.index()));
            notify.execute();
        }
    }

    /** What the database holds, as read in {@code c}'s transaction. */
    private record Rows(StoreIndexFile recorded, Map<StoreTable, Map<String, ItemStamp>> stamps,
            Map<StoreTable, Map<String, Object>> userItems) {
    }

    private Rows readRows(Connection c, boolean lock) throws SQLException {
        var tables = new HashMap<String, Long>();
        long index;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT store_index, sources_index, metrics_index, presets_index"
                     + " FROM store_index" + (lock ? " FOR UPDATE" : ""))) {
            rs.next();
            index = rs.getLong(1);
            tables.put(StoreState.key(StoreTable.SOURCES), rs.getLong(2));
            tables.put(StoreState.key(StoreTable.METRICS), rs.getLong(3));
            tables.put(StoreState.key(StoreTable.PRESETS), rs.getLong(4));
        }
        var stamps = new EnumMap<StoreTable, Map<String, ItemStamp>>(StoreTable.class);
        var users = new EnumMap<StoreTable, Map<String, Object>>(StoreTable.class);
        for (StoreTable table : StoreTable.values()) {
            stamps.put(table, new HashMap<>());
            users.put(table, new LinkedHashMap<>());
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT item_table, name, body::text, modify_index, fingerprint"
                     + " FROM store_item ORDER BY item_table, name")) {
            while (rs.next()) {
                StoreTable table = StoreTable.valueOf(rs.getString(1).toUpperCase(java.util.Locale.ROOT));
                String name = rs.getString(2);
                String body = rs.getString(3);
                stamps.get(table).put(name, new ItemStamp(rs.getLong(4), rs.getString(5)));
                if (body != null) {
                    users.get(table).put(name, json.read(table, name, body));
                }
            }
        }
        var recordedItems = new HashMap<String, Map<String, ItemStamp>>();
        stamps.forEach((table, byName) -> recordedItems.put(StoreState.key(table), byName));
        return new Rows(new StoreIndexFile(index, tables, recordedItems), stamps, users);
    }

    @SuppressWarnings("unchecked")
    private StoreState unstamped(Rows rows) {
        return StoreState.of(0, builtIns,
                (Map<String, io.pgharvest.model.Source>) (Map<String, ?>) rows.userItems().get(StoreTable.SOURCES),
                (Map<String, io.pgharvest.model.MetricDefinition>) (Map<String, ?>) rows.userItems().get(StoreTable.METRICS),
                (Map<String, io.pgharvest.model.Preset>) (Map<String, ?>) rows.userItems().get(StoreTable.PRESETS),
                Map.of(), Map.of());
    }

    /**
     * The state exactly as recorded: the writer stamped every item. An item this instance sees
     * but the database has no stamp for (a built-in of a newer pgharvest than the writer) takes
     * the table's index, so that all instances agree on the store index.
     */
    private StoreState recordedState(Rows rows) {
        StoreState unstamped = unstamped(rows);
        StoreIndexFile recorded = rows.recorded();
        var stamps = new EnumMap<StoreTable, Map<String, ItemStamp>>(StoreTable.class);
        var tableIndexes = new EnumMap<StoreTable, Long>(StoreTable.class);
        for (StoreTable table : StoreTable.values()) {
            long tableIndex = recorded.tables().getOrDefault(StoreState.key(table), 0L);
            tableIndexes.put(table, tableIndex);
            Map<String, ItemStamp> known = rows.stamps().get(table);
            var byName = new HashMap<String, ItemStamp>();
            effectiveItems(unstamped, table).forEach((name, item) -> byName.put(name, known.getOrDefault(name,
                    new ItemStamp(tableIndex, fingerprints.of(table, name, item)))));
            stamps.put(table, byName);
        }
        return StoreState.of(recorded.index(), builtIns, unstamped.sources(), unstamped.userMetrics(),
                unstamped.userPresets(), tableIndexes, stamps);
    }

    private static Map<String, ?> effectiveItems(StoreState state, StoreTable table) {
        return switch (table) {
            case SOURCES -> state.snapshot().sources();
            case METRICS -> state.snapshot().metrics();
            case PRESETS -> state.snapshot().presets();
        };
    }

    private static Map<String, ?> userItems(StoreState state, StoreTable table) {
        return switch (table) {
            case SOURCES -> state.sources();
            case METRICS -> state.userMetrics();
            case PRESETS -> state.userPresets();
        };
    }

    private StoreUnavailableException unavailable(String what, SQLException e) {
        return new StoreUnavailableException(what + " (" + maskedUrl + "): " + e.getMessage(), e);
    }
}
