package io.pgharvest.reaper;

import io.pgharvest.endpoint.EndpointProtocol;
import io.pgharvest.endpoint.RolePrivileges;
import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.endpoint.SessionSettings;
import io.pgharvest.model.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/**
 * One reaper's connection to its source, opened by the {@link SessionOpener} (whose rules it
 * shares with the connection test), plus the server facts the engine schedules by.
 */
final class SourceSession implements AutoCloseable {

    private static final String FACTS_SQL = """
            select current_setting('server_version_num')::int, pg_is_in_recovery(),
                   coalesce(host(inet_server_addr()), '') || ':' || coalesce(inet_server_port(), 0)""";
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    private static final String SYSTEM_ID_SQL = "select system_identifier::text from pg_control_system()";

    private final Connection connection;
    private final boolean postgres;
    private final QueryPipeline pipeline;
    private ServerFacts facts;
    private RolePrivileges privileges = RolePrivileges.READ_ONLY;
    private boolean systemIdReadable = true;

    private SourceSession(Connection connection, boolean postgres, QueryPipeline pipeline) {
        this.connection = connection;
        this.postgres = postgres;
        this.pipeline = pipeline;
    }

    static SourceSession open(SessionOpener opener, ConnectionString conn, SourceKind kind, Instant now)
            throws SQLException {
        SessionSettings settings = opener.settings();
        Connection connection = opener.open(conn, kind);
        try {
            connection.setAutoCommit(true);
            // Login was bounded by the short connect timeout; queries get the long safety net.
            connection.setNetworkTimeout(Runnable::run, (int) settings.socketTimeout().toMillis());
            boolean postgres = EndpointProtocol.of(kind).isPostgres();
            var session = new SourceSession(connection, postgres, new QueryPipeline(connection,
                    settings.defaultStatementTimeout(), settings.socketTimeout(), postgres));
            session.refreshFacts(now);
            if (postgres) {
                session.privileges = RolePrivileges.of(connection);
                if (settings.refusePrivileged() && session.privileges.privileged()) {
                    throw new SQLException("refused: the source " + session.privileges.warning()
                            + "; pgharvest.reaper.refuse-privileged-sources is on", INSUFFICIENT_PRIVILEGE);
                }
            }
            return session;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    /** Re-reads version and recovery state (one round trip; two on the first call). */
    ServerFacts refreshFacts(Instant now) throws SQLException {
        if (!postgres) {
            facts = ServerFacts.notPostgres(now);
            return facts;
        }
        int versionNum;
        boolean inRecovery;
        String serverAddress;
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(FACTS_SQL)) {
            rs.next();
            versionNum = rs.getInt(1);
            inRecovery = rs.getBoolean(2);
            serverAddress = rs.getString(3);
        }
        String systemId = facts == null ? readSystemIdentifier() : facts.systemIdentifier();
        facts = new ServerFacts(versionNum, inRecovery, systemId, serverAddress, now);
        return facts;
    }

    /** pg_control_system() needs pg_monitor or superuser; without it we share by host and port. */
    private String readSystemIdentifier() {
        if (!systemIdReadable) {
            return null;
        }
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(SYSTEM_ID_SQL)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            systemIdReadable = false;
            return null;
        }
    }

    /** What the session's role could do beyond reading (read once when the session opened). */
    RolePrivileges privileges() {
        return privileges;
    }

    ServerFacts facts() {
        return facts;
    }

    QueryPipeline pipeline() {
        return pipeline;
    }

    /** True when an error means the session itself is gone, not just one query. */
    boolean isBroken(SQLException error) {
        String state = error.getSQLState();
        boolean connectionClass = state != null && (state.startsWith("08") || state.startsWith("57P"));
        try {
            return connectionClass || connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    @Override
    public void close() {
        pipeline.close();
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing a dead session: nothing left to release on our side.
        }
    }
}
