package io.pgharvest.reaper;

import io.pgharvest.source.ConnectionString;
import io.pgharvest.source.SourceKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Properties;

/**
 * One reaper's connection to its source. A reaper runs its ticks one after another, so it needs
 * exactly one connection and no pool: no pool housekeeping thread exists per source.
 *
 * <p>For PostgreSQL the session settings travel in the startup packet ({@code options}), so
 * opening a session costs no extra round trip. pgbouncer and pgpool admin consoles reject
 * unknown startup options and the extended protocol, so they get the simple protocol and no
 * options.
 */
final class SourceSession implements AutoCloseable {

    private static final String FACTS_SQL = """
            select current_setting('server_version_num')::int, pg_is_in_recovery(),
                   coalesce(host(inet_server_addr()), '') || ':' || coalesce(inet_server_port(), 0)""";
    private static final String SYSTEM_ID_SQL = "select system_identifier::text from pg_control_system()";

    private final Connection connection;
    private final SourceKind kind;
    private final QueryPipeline pipeline;
    private ServerFacts facts;
    private boolean systemIdReadable = true;

    private SourceSession(Connection connection, SourceKind kind, QueryPipeline pipeline) {
        this.connection = connection;
        this.kind = kind;
        this.pipeline = pipeline;
    }

    static SourceSession open(ConnectionString conn, SourceKind kind, SessionSettings settings,
            Instant now) throws SQLException {
        Properties props = sessionProperties(conn, kind, settings);
        Connection connection = DriverManager.getConnection(conn.jdbcUrl(), props);
        try {
            connection.setAutoCommit(true);
            // Login was bounded by the short connect timeout; queries get the long safety net.
            connection.setNetworkTimeout(Runnable::run, (int) settings.socketTimeout().toMillis());
            var session = new SourceSession(connection, kind, new QueryPipeline(connection,
                    settings.defaultStatementTimeout(), settings.socketTimeout(), isPostgres(kind)));
            session.refreshFacts(now);
            return session;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    static Properties sessionProperties(ConnectionString conn, SourceKind kind, SessionSettings settings) {
        Properties props = new Properties();
        props.putAll(conn.jdbcProperties());
        props.setProperty("ApplicationName", SessionSettings.APPLICATION_NAME);
        int connectSeconds = (int) Math.max(1, Math.ceil(settings.connectTimeout().toMillis() / 1000.0));
        props.setProperty("connectTimeout", Integer.toString(connectSeconds));
        // Not loginTimeout: pgjdbc enforces it by running each attempt on a new platform thread
        // (abandoned, still blocked, when it expires). A server that accepts TCP but never
        // answers the login is bounded by the socket timeout instead, set to the connect
        // timeout until the session is open.
        props.remove("loginTimeout");
        props.setProperty("socketTimeout", Integer.toString(connectSeconds));
        props.setProperty("tcpKeepAlive", "true");
        // QueryPipeline keeps its own statements; pgjdbc's per-connection cache of closed ones
        // would only hold on to memory for statements we evicted on purpose.
        props.setProperty("preparedStatementCacheQueries", "0");
        if (isPostgres(kind)) {
            // Travels in the startup packet: no extra round trip for SETs.
            String options = "-c default_transaction_read_only=on"
                    + " -c lock_timeout=" + settings.lockTimeout().toMillis()
                    + " -c statement_timeout=" + settings.defaultStatementTimeout().toMillis();
            String existing = props.getProperty("options");
            props.setProperty("options", existing == null || existing.isBlank() ? options : existing + " " + options);
            props.setProperty("assumeMinServerVersion", "10");
        } else {
            props.setProperty("preferQueryMode", "simple");
        }
        return props;
    }

    static boolean isPostgres(SourceKind kind) {
        return kind == SourceKind.POSTGRES || kind == SourceKind.POSTGRES_CONTINUOUS_DISCOVERY;
    }

    /** Re-reads version and recovery state (one round trip; two on the first call). */
    ServerFacts refreshFacts(Instant now) throws SQLException {
        if (!isPostgres(kind)) {
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
