package io.pgharvest.lease;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The SQL of the lease protocol on {@code fleet_instance} and {@code source_lease}. Every
 * statement is one autocommit round trip, and all times are the configuration database's
 * ({@code now()}), so instances need no synchronized clocks to agree on who holds what.
 */
final class LeaseTable {

    static final String CHANNEL = "pgharvest_fleet";

    private final String self;
    private final String leaseInterval;

    LeaseTable(String self, Duration leaseDuration) {
        this.self = self;
        this.leaseInterval = leaseDuration.toMillis() + " milliseconds";
    }

    void heartbeat(Connection c, List<String> groups, boolean leaving) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("""
                INSERT INTO fleet_instance (instance_id, groups, heartbeat_at, expires_at, leaving)
                VALUES (?, ?, now(), now() + ?::interval, ?)
                ON CONFLICT (instance_id) DO UPDATE SET groups = excluded.groups, heartbeat_at = now(),
                    expires_at = excluded.expires_at, leaving = excluded.leaving""")) {
            s.setString(1, self);
            s.setArray(2, c.createArrayOf("text", groups.toArray()));
            s.setString(3, leaseInterval);
            s.setBoolean(4, leaving);
            s.executeUpdate();
        }
    }

    /**
     * Extends every lease this instance holds, expired or not (after an outage nobody could take
     * them, see {@link LeaseCoordinator}), and records the owner's measurements.
     *
     * @return the sources this instance holds now: a source missing here was taken over
     */
    Set<String> renew(Connection c, Map<String, Measured> measured) throws SQLException {
        var names = new ArrayList<String>(measured.keySet());
        try (PreparedStatement s = c.prepareStatement("""
                UPDATE source_lease l SET expires_at = now() + ?::interval,
                    cost_ms = coalesce(m.cost_ms, l.cost_ms), last_tick_at = coalesce(m.last_tick_at, l.last_tick_at),
                    state = coalesce(m.state, l.state),
                    last_error = CASE WHEN m.source IS NULL THEN l.last_error ELSE m.last_error END
                FROM source_lease l2
                LEFT JOIN unnest(?::text[], ?::float8[], ?::timestamptz[], ?::text[], ?::text[])
                    AS m(source, cost_ms, last_tick_at, state, last_error)
                    ON m.source = l2.source
                WHERE l.source = l2.source AND l.owner = ?
                RETURNING l.source""")) {
            s.setString(1, leaseInterval);
            s.setArray(2, c.createArrayOf("text", names.toArray()));
            s.setArray(3, c.createArrayOf("float8", names.stream().map(n -> measured.get(n).costMillis()).toArray()));
            s.setArray(4, c.createArrayOf("timestamptz",
                    names.stream().map(n -> toTimestamp(measured.get(n).lastTick())).toArray()));
            s.setArray(5, c.createArrayOf("text", names.stream().map(n -> measured.get(n).state()).toArray()));
            s.setArray(6, c.createArrayOf("text", names.stream().map(n -> measured.get(n).lastError()).toArray()));
            s.setString(7, self);
            var held = new HashSet<String>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    held.add(rs.getString(1));
                }
            }
            return held;
        }
    }

    /**
     * What the owner measured of a source: last tick's duration and start, and what the other
     * instances show as its status (state label, last connection error).
     */
    record Measured(double costMillis, Instant lastTick, String state, String lastError) {
    }

    /** Live instances (not leaving) and their group filters. */
    Map<String, Set<String>> instances(Connection c) throws SQLException {
        var instances = new HashMap<String, Set<String>>();
        try (PreparedStatement s = c.prepareStatement(
                "SELECT instance_id, groups FROM fleet_instance WHERE expires_at > now() AND NOT leaving");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                Array groups = rs.getArray(2);
                instances.put(rs.getString(1), Set.of((String[]) groups.getArray()));
            }
        }
        return instances;
    }

    Map<String, FleetView.Lease> leases(Connection c) throws SQLException {
        var leases = new HashMap<String, FleetView.Lease>();
        try (PreparedStatement s = c.prepareStatement(
                "SELECT source, owner, epoch, expires_at < now(), cost_ms, expires_at, last_tick_at, state, last_error"
                        + " FROM source_lease");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                leases.put(rs.getString(1), new FleetView.Lease(rs.getString(1), rs.getString(2), rs.getLong(3),
                        rs.getBoolean(4), rs.getDouble(5), toInstant(rs.getTimestamp(6)), toInstant(rs.getTimestamp(7)),
                        rs.getString(8), rs.getString(9)));
            }
        }
        return leases;
    }

    /**
     * Takes {@code source} if it is free: no row, handed back, or (with {@code mayTakeExpired})
     * expired. Atomic: of instances claiming at once, exactly one gets it, with a new epoch.
     *
     * @return empty when another instance holds it; else the claim, with the grid point the
     *     previous owner ran last as the row holds it now (read by the same statement: a view of
     *     the leases read before may predate the previous owner's hand-back and its last tick)
     */
    Optional<Claim> claim(Connection c, String source, boolean mayTakeExpired) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("""
                INSERT INTO source_lease (source, owner, epoch, expires_at) VALUES (?, ?, 1, now() + ?::interval)
                ON CONFLICT (source) DO UPDATE SET owner = excluded.owner, epoch = source_lease.epoch + 1,
                    expires_at = excluded.expires_at
                WHERE source_lease.owner IS NULL OR (? AND source_lease.expires_at < now())
                RETURNING last_tick_at""")) {
            s.setString(1, source);
            s.setString(2, self);
            s.setString(3, leaseInterval);
            s.setBoolean(4, mayTakeExpired);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new Claim(toInstant(rs.getTimestamp(1)))) : Optional.empty();
            }
        }
    }

    /** A lease just taken; {@code previousTick} is null when no previous owner ever ticked. */
    record Claim(Instant previousTick) {
    }

    /**
     * Hands {@code source} back (its reaper here has stopped) and wakes the other instances;
     * {@code lastTick} (when known) tells the next owner which grid point was the last one run here.
     */
    void free(Connection c, String source, Instant lastTick) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE source_lease SET owner = NULL, expires_at = now(),"
                + " last_tick_at = coalesce(?, last_tick_at) WHERE source = ? AND owner = ?")) {
            s.setTimestamp(1, toTimestamp(lastTick));
            s.setString(2, source);
            s.setString(3, self);
            s.executeUpdate();
        }
        notifyFleet(c);
    }

    /** Forgets leases of sources the configuration no longer has, once nobody runs them. */
    void forget(Connection c, Set<String> wanted) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("""
                DELETE FROM source_lease WHERE NOT (source = ANY (?)) AND (owner IS NULL OR expires_at < now())""")) {
            s.setArray(1, c.createArrayOf("text", wanted.toArray()));
            s.executeUpdate();
        }
    }

    void leave(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM fleet_instance WHERE instance_id = ?")) {
            s.setString(1, self);
            s.executeUpdate();
        }
        notifyFleet(c);
    }

    static void notifyFleet(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_notify('" + CHANNEL + "', '')")) {
            s.execute();
        }
    }

    private static Instant toInstant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    private static Timestamp toTimestamp(Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }
}
