package io.pgharvest.alert.notify.postgres;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.OutboxEntry;
import io.pgharvest.alert.notify.OutboxEntry.Status;
import io.pgharvest.alert.notify.ReceiverDefinition;
import io.pgharvest.alert.notify.Silence;
import io.pgharvest.store.StoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The notification side of the configuration database ({@code alert_receiver},
 * {@code alert_silence}, {@code alert_outbox}; see {@code db/store-postgres}), shared by every
 * instance. Each call is one transaction. Dispatchers of several instances claim due entries with
 * {@code FOR UPDATE SKIP LOCKED} and a claim deadline, so one entry is sent by one of them.
 */
public final class PostgresNotifyStore implements NotifyStore {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String COLUMNS = "receiver, fingerprint, starts_at, event, transition::text, created_at,"
            + " attempts, next_attempt_at, status, note";

    private final DataSource dataSource;
    private final String maskedUrl;

    /** @param dataSource a pool on the configuration database with {@code search_path} set to its schema */
    public PostgresNotifyStore(DataSource dataSource, String maskedUrl) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
    }

    @Override
    public List<ReceiverDefinition> receivers() {
        return query("SELECT body::text FROM alert_receiver ORDER BY name", s -> { },
                rs -> JSON.readValue(rs.getString(1), ReceiverDefinition.class));
    }

    @Override
    public Optional<ReceiverDefinition> receiver(String name) {
        return query("SELECT body::text FROM alert_receiver WHERE name = ?", s -> s.setString(1, name),
                rs -> JSON.readValue(rs.getString(1), ReceiverDefinition.class)).stream().findFirst();
    }

    @Override
    public boolean createReceiver(ReceiverDefinition receiver) {
        return update("INSERT INTO alert_receiver (name, body) VALUES (?, ?::jsonb) ON CONFLICT (name) DO NOTHING",
                s -> {
                    s.setString(1, receiver.name());
                    s.setString(2, JSON.writeValueAsString(receiver));
                }) == 1;
    }

    @Override
    public boolean replaceReceiver(ReceiverDefinition receiver) {
        return update("UPDATE alert_receiver SET body = ?::jsonb WHERE name = ?", s -> {
            s.setString(1, JSON.writeValueAsString(receiver));
            s.setString(2, receiver.name());
        }) == 1;
    }

    @Override
    public boolean deleteReceiver(String name) {
        return update("DELETE FROM alert_receiver WHERE name = ?", s -> s.setString(1, name)) == 1;
    }

    @Override
    public List<Silence> silences() {
        return query("SELECT body::text FROM alert_silence ORDER BY id", s -> { },
                rs -> JSON.readValue(rs.getString(1), Silence.class));
    }

    @Override
    public void createSilence(Silence silence) {
        update("INSERT INTO alert_silence (id, body) VALUES (?, ?::jsonb)", s -> {
            s.setString(1, silence.id());
            s.setString(2, JSON.writeValueAsString(silence));
        });
    }

    @Override
    public boolean deleteSilence(String id) {
        return update("DELETE FROM alert_silence WHERE id = ?", s -> s.setString(1, id)) == 1;
    }

    @Override
    public int enqueue(Collection<OutboxEntry> entries) {
        if (entries.isEmpty()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                int added = 0;
                try (PreparedStatement insert = c.prepareStatement("""
                        INSERT INTO alert_outbox (receiver, fingerprint, starts_at, event, transition, created_at,
                            attempts, next_attempt_at, status, note)
                        VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)
                        ON CONFLICT (receiver, fingerprint, starts_at, event) DO NOTHING""");
                     PreparedStatement supersede = c.prepareStatement("""
                        UPDATE alert_outbox SET status = 'superseded', note = 'the alert resolved'
                        WHERE receiver = ? AND fingerprint = ? AND starts_at = ? AND status = 'pending'
                            AND event LIKE 'resend-%'""")) {
                    for (OutboxEntry entry : entries) {
                        bindEntry(insert, entry);
                        int inserted = insert.executeUpdate();
                        added += inserted;
                        if (inserted == 1 && entry.transition().state() == AlertTransition.State.RESOLVED) {
                            supersede.setString(1, entry.key().receiver());
                            supersede.setString(2, entry.key().fingerprint());
                            supersede.setString(3, entry.key().startsAt().toString());
                            supersede.executeUpdate();
                        }
                    }
                }
                c.commit();
                return added;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw unavailable("cannot write the alert outbox; nothing was queued", e);
        }
    }

    @Override
    public List<OutboxEntry> claim(Instant now, int limit, Duration lease) {
        return query("""
                UPDATE alert_outbox o SET claimed_until = ?
                FROM (SELECT c.receiver, c.fingerprint, c.starts_at, c.event FROM alert_outbox c
                      WHERE c.status = 'pending' AND c.next_attempt_at <= ?
                        AND (c.claimed_until IS NULL OR c.claimed_until <= ?)
                        AND NOT EXISTS (SELECT 1 FROM alert_outbox e
                                        WHERE e.receiver = c.receiver AND e.fingerprint = c.fingerprint
                                          AND e.status = 'pending' AND e.seq < c.seq)
                      ORDER BY c.seq LIMIT ? FOR UPDATE SKIP LOCKED) due
                WHERE (o.receiver, o.fingerprint, o.starts_at, o.event)
                    = (due.receiver, due.fingerprint, due.starts_at, due.event)
                RETURNING o.receiver, o.fingerprint, o.starts_at, o.event, o.transition::text, o.created_at,
                    o.attempts, o.next_attempt_at, o.status, o.note, o.seq""", s -> {
                    s.setTimestamp(1, Timestamp.from(now.plus(lease)));
                    s.setTimestamp(2, Timestamp.from(now));
                    s.setTimestamp(3, Timestamp.from(now));
                    s.setInt(4, limit);
                }, PostgresNotifyStore::entry).stream()
                .sorted(java.util.Comparator.comparing(OutboxEntry::createdAt)).toList();
    }

    @Override
    public void update(OutboxEntry entry) {
        update("""
                UPDATE alert_outbox SET attempts = ?, next_attempt_at = ?, status = ?, note = ?, claimed_until = NULL
                WHERE receiver = ? AND fingerprint = ? AND starts_at = ? AND event = ?""", s -> {
                    s.setInt(1, entry.attempts());
                    s.setTimestamp(2, Timestamp.from(entry.nextAttemptAt()));
                    s.setString(3, entry.status().name().toLowerCase(Locale.ROOT));
                    s.setString(4, entry.note());
                    s.setString(5, entry.key().receiver());
                    s.setString(6, entry.key().fingerprint());
                    s.setString(7, entry.key().startsAt().toString());
                    s.setString(8, entry.key().event());
                });
    }

    @Override
    public List<OutboxEntry> entries(String receiver) {
        return query("SELECT " + COLUMNS + " FROM alert_outbox WHERE receiver = ? ORDER BY seq",
                s -> s.setString(1, receiver), PostgresNotifyStore::entry);
    }

    @Override
    public int prune(Instant before) {
        return update("DELETE FROM alert_outbox WHERE status <> 'pending' AND created_at < ?",
                s -> s.setTimestamp(1, Timestamp.from(before)));
    }

    private static void bindEntry(PreparedStatement s, OutboxEntry entry) throws SQLException {
        s.setString(1, entry.key().receiver());
        s.setString(2, entry.key().fingerprint());
        s.setString(3, entry.key().startsAt().toString());
        s.setString(4, entry.key().event());
        s.setString(5, JSON.writeValueAsString(entry.transition()));
        s.setTimestamp(6, Timestamp.from(entry.createdAt()));
        s.setInt(7, entry.attempts());
        s.setTimestamp(8, Timestamp.from(entry.nextAttemptAt()));
        s.setString(9, entry.status().name().toLowerCase(Locale.ROOT));
        s.setString(10, entry.note());
    }

    private static OutboxEntry entry(ResultSet rs) throws SQLException {
        var key = new OutboxEntry.Key(rs.getString(1), rs.getString(2), Instant.parse(rs.getString(3)),
                rs.getString(4));
        return new OutboxEntry(key, JSON.readValue(rs.getString(5), AlertTransition.class),
                rs.getTimestamp(6).toInstant(), rs.getInt(7), rs.getTimestamp(8).toInstant(),
                Status.valueOf(rs.getString(9).toUpperCase(Locale.ROOT)), rs.getString(10));
    }

    private interface Binder {
        void bind(PreparedStatement s) throws SQLException;
    }

    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> List<T> query(String sql, Binder binder, RowReader<T> reader) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            binder.bind(s);
            var out = new ArrayList<T>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(reader.read(rs));
                }
            }
            return out;
        } catch (SQLException e) {
            throw unavailable("cannot read the alert notifications' tables", e);
        }
    }

    private int update(String sql, Binder binder) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            binder.bind(s);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw unavailable("cannot write the alert notifications' tables; nothing was changed", e);
        }
    }

    private StoreUnavailableException unavailable(String what, SQLException e) {
        return new StoreUnavailableException(what + " (" + maskedUrl + "): " + e.getMessage(), e);
    }
}
