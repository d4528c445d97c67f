package io.pgharvest.alert.store;

import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.alert.AlertTransition;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.StoreUnavailableException;
import io.pgharvest.support.SmallPools;
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
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Alerting's tables in the configuration database ({@code pgharvest.store.url}; created by the
 * configuration store's migrations, {@code db/store-postgres}), so that every instance of a fleet sees the same rules and the
 * instance that takes a source over finds its alerts' states.
 */
public final class PostgresAlertStorage implements AlertStorage {

    static final String SCHEMA = "pgharvest_config";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HikariDataSource dataSource;
    private final String maskedUrl;

    private PostgresAlertStorage(HikariDataSource dataSource, String maskedUrl) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
    }

    /**
     * Connects to the configuration database at {@code connectionUri}, whose tables the
     * configuration store's migrations created ({@code db/store-postgres}): open that store first.
     */
    public static PostgresAlertStorage open(String connectionUri) {
        ConnectionString url = ConnectionString.parse(connectionUri);
        var dataSource = new HikariDataSource(SmallPools.config("alert-store", url.jdbcUrl(), url.jdbcProperties(), 2,
                "SET lock_timeout = '10s'; SET search_path = " + SCHEMA));
        return new PostgresAlertStorage(dataSource, url.masked());
    }

    @Override
    public StoredRule.Table readRules() {
        return query(c -> {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                long index = index(c);
                var rules = new HashMap<String, StoredRule>();
                try (Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT name, body::text, modify_index FROM alert_rule")) {
                    while (rs.next()) {
                        rules.put(rs.getString(1), new StoredRule(
                                JSON.readValue(rs.getString(2), io.pgharvest.alert.rule.AlertRuleBody.class), rs.getLong(3)));
                    }
                }
                return new StoredRule.Table(index, rules);
            } finally {
                c.rollback();
            }
        });
    }

    @Override
    public long rulesIndex() {
        return query(PostgresAlertStorage::index);
    }

    private static long index(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT rule_index FROM alert_rule_index")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public boolean writeRule(long expected, long next, String name, StoredRule rule) {
        return query(c -> {
            c.setAutoCommit(false);
            try (PreparedStatement move = c.prepareStatement(
                    "UPDATE alert_rule_index SET rule_index = ? WHERE rule_index = ?")) {
                move.setLong(1, next);
                move.setLong(2, expected);
                if (move.executeUpdate() == 0) {
                    c.rollback();
                    return false;
                }
            }
            if (rule == null) {
                try (PreparedStatement delete = c.prepareStatement("DELETE FROM alert_rule WHERE name = ?")) {
                    delete.setString(1, name);
                    delete.executeUpdate();
                }
            } else {
                try (PreparedStatement upsert = c.prepareStatement("""
                        INSERT INTO alert_rule (name, body, modify_index) VALUES (?, ?::jsonb, ?)
                        ON CONFLICT (name) DO UPDATE SET body = excluded.body, modify_index = excluded.modify_index""")) {
                    upsert.setString(1, name);
                    upsert.setString(2, JSON.writeValueAsString(rule.body()));
                    upsert.setLong(3, rule.modifyIndex());
                    upsert.executeUpdate();
                }
            }
            c.commit();
            return true;
        });
    }

    @Override
    public Map<String, AlertState> readStates(String source) {
        return query(c -> {
            var states = new HashMap<String, AlertState>();
            try (PreparedStatement s = c.prepareStatement("SELECT body::text FROM alert_state WHERE source = ?")) {
                s.setString(1, source);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        AlertState state = JSON.readValue(rs.getString(1), AlertState.class);
                        states.put(state.fingerprint(), state);
                    }
                }
            }
            return states;
        });
    }

    @Override
    public void writeStates(String source, Collection<AlertState> states) {
        query(c -> {
            c.setAutoCommit(false);
            try (PreparedStatement delete = c.prepareStatement("DELETE FROM alert_state WHERE source = ?");
                 PreparedStatement insert = c.prepareStatement(
                         "INSERT INTO alert_state (source, fingerprint, body) VALUES (?, ?, ?::jsonb)")) {
                delete.setString(1, source);
                delete.executeUpdate();
                for (AlertState state : states) {
                    insert.setString(1, source);
                    insert.setString(2, state.fingerprint());
                    insert.setString(3, JSON.writeValueAsString(state));
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            c.commit();
            return null;
        });
    }

    @Override
    public void appendHistory(AlertTransition transition) {
        query(c -> {
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO alert_history (at, fingerprint, body) VALUES (?, ?, ?::jsonb)")) {
                insert.setTimestamp(1, Timestamp.from(HistoryTimes.of(transition)));
                insert.setString(2, transition.fingerprint());
                insert.setString(3, JSON.writeValueAsString(transition));
                insert.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public List<AlertTransition> readHistory(Instant from, Instant to, int limit) {
        return query(c -> {
            var found = new ArrayList<AlertTransition>();
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT body::text FROM alert_history WHERE at >= ? AND at < ? ORDER BY at, id LIMIT ?")) {
                s.setTimestamp(1, Timestamp.from(from));
                s.setTimestamp(2, Timestamp.from(to));
                s.setInt(3, limit);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        found.add(JSON.readValue(rs.getString(1), AlertTransition.class));
                    }
                }
            }
            return found;
        });
    }

    /** One unit of work on a connection of the pool. */
    @FunctionalInterface
    private interface Work<T> {
        T on(Connection c) throws SQLException;
    }

    private <T> T query(Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            return work.on(c);
        } catch (SQLException e) {
            throw new StoreUnavailableException("alerting's tables in the configuration database (" + maskedUrl
                    + ") cannot be used: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
