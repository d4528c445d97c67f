package io.pgharvest.kind.postgres;

import io.pgharvest.kind.AloneRun;
import io.pgharvest.kind.RoundTrip;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.kind.RolePrivileges;
import io.pgharvest.kind.ServerFacts;
import io.pgharvest.kind.SessionRefusedException;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.BoundedText;
import io.pgharvest.model.RowValues;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.sql.MetricSql;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.PlanningLogin;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reaper's session on a PostgreSQL server ({@link PostgresEndpoint}): a pgjdbc connection opened
 * by the {@link SessionOpener} (whose rules it shares with the connection test), the server facts
 * the engine schedules by, and the {@link QueryPipeline} that sends a tick's queries in one round
 * trip. Not thread-safe: owned by one reaper's thread.
 */
final class PostgresSession implements SourceSession {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSession.class);

    private static final String FACTS_SQL = """
            select current_setting('server_version_num')::int, pg_is_in_recovery(),
                   coalesce(host(inet_server_addr()), '') || ':' || coalesce(inet_server_port(), 0),
                   current_database()::text, """ + ExtensionObjects.FINGERPRINT;
    static final String QUERY_CANCELED = "57014";
    static final String LOCK_NOT_AVAILABLE = "55P03";
    /** admin_shutdown: the backend was terminated (pg_terminate_backend, or a server shutdown). */
    static final String TERMINATED = "57P01";
    private static final String SYSTEM_ID_SQL = "select system_identifier::text from pg_control_system()";
    /** Floor of the facts queries' own time limit, however short the metrics' default is. */
    private static final Duration MIN_FACTS_TIMEOUT = Duration.ofSeconds(30);
    /** Distinct native SQL texts whose check a session remembers. */
    private static final int NATIVE_VERDICTS = 64;

    private final Connection connection;
    private final QueryPipeline pipeline;
    private final Duration factsTimeout;
    /** How this session was opened, for the planning role's session ({@link #openPlanning}). */
    private final SessionOpener opener;
    private final ConnectionString conn;
    /** Thread-safe: the idle-session watch asks it from its own thread. */
    private final ArrivedBytes arrived;
    /** The stream every result arrives through: it cuts a result past the byte limit. */
    private final ResultBytesBound bound;
    private final ResultLimits limits;
    /** {@link #refuseUnlessNative}'s verdicts by SQL text, at most {@link #NATIVE_VERDICTS}. */
    private final Map<String, Optional<String>> nativeVerdicts = new HashMap<>();
    private ServerFacts facts;
    private RolePrivileges privileges = RolePrivileges.READ_ONLY;
    private boolean systemIdReadable = true;
    /** The extensions ({@link ExtensionObjects#FINGERPRINT}) the pipeline's names were read for. */
    private String extensionsRead;

    private PostgresSession(Connection connection, ArrivedBytes arrived, ResultBytesBound bound, ResultLimits limits,
            QueryPipeline pipeline, Duration factsTimeout, SessionOpener opener, ConnectionString conn) {
        this.arrived = arrived;
        this.bound = bound;
        this.limits = limits;
        this.connection = connection;
        this.pipeline = pipeline;
        this.factsTimeout = factsTimeout;
        this.opener = opener;
        this.conn = conn;
    }

    /**
     * The facts queries' own statement and lock timeout: six times the metrics' default, at
     * least 30 s, at most half the socket timeout. A busy server answers them late rather than
     * never, and a session that cannot read its facts is useless, so they may wait longer than
     * a metric; failing them instead would cost a reconnect (and the server a new backend).
     */
    static Duration factsTimeout(SessionSettings settings) {
        Duration wanted = settings.defaultStatementTimeout().multipliedBy(6);
        if (wanted.compareTo(MIN_FACTS_TIMEOUT) < 0) {
            wanted = MIN_FACTS_TIMEOUT;
        }
        Duration cap = settings.socketTimeout().dividedBy(2);
        return wanted.compareTo(cap) > 0 ? cap : wanted;
    }

    /**
     * Opens a session on the server {@code conn} names and reads its facts; refuses a privileged
     * role when the settings say so.
     */
    public static PostgresSession open(SessionOpener opener, ConnectionString conn, Instant now) throws SQLException {
        SessionSettings settings = opener.settings();
        var opened = opener.openWithSocket(conn);
        Connection connection = opened.value();
        ArrivedBytes arrived = opened.socket() == null ? ArrivedBytes.UNKNOWN : new ArrivedBytes(opened.socket());
        ResultBytesBound bound = opened.bound();
        ResultLimits limits = settings.resultLimits();
        // Now, at a message boundary: the login read up to its ReadyForQuery and nothing was sent since.
        bound.arm(limits.maxBytes());
        try {
            connection.setAutoCommit(true);
            // Login was bounded by the short connect timeout; queries get the long safety net.
            connection.setNetworkTimeout(Runnable::run, (int) settings.socketTimeout().toMillis());
            var session = new PostgresSession(connection, arrived, bound, limits, new QueryPipeline(connection,
                    settings.defaultStatementTimeout(), settings.socketTimeout(), limits, bound), factsTimeout(settings),
                    opener, conn);
            session.readFacts(now, true);
            if (bound.lost()) {
                // Its first round trip came as something other than protocol messages: GSS encryption.
                LOG.warn("the session to {} is GSS-encrypted: its results are bounded by rows only, not by"
                        + " pgharvest.reaper.max-result-bytes (docs/security.md)", conn.hosts());
            }
            if (settings.refusePrivileged() && session.privileges.privileged()) {
                throw new SessionRefusedException("refused: the source " + session.privileges.warning()
                        + "; pgharvest.reaper.refuse-privileged-sources is on");
            }
            return session;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    @Override
    public long droppedNotices() {
        return bound.droppedNotices();
    }

    /** Re-reads version and recovery state (one transaction, under the facts' own time limit). */
    @Override
    public ServerFacts refreshFacts(Instant now) throws SQLException {
        return readFacts(now, false);
    }

    /**
     * Reads the facts in one read-only transaction whose statement and lock timeouts are the
     * facts' own ({@link #factsTimeout}), set by {@code SET LOCAL} (a utility command: unlike a
     * function call it needs no catalog lookup, so it cannot itself wait for a lock). On the
     * first call it also reads the role's privileges and the system identifier.
     *
     * <p>Round trips: the opening statements and the facts query go in one (several statements
     * in one execute are one Sync), with the extensions' objects when opening; a refresh, which needs
     * nothing else, closes the transaction in that same round trip (and reads the extensions' objects
     * in one more only when pg_extension changed). Opening a session costs 4 round trips, a refresh 1.
     */
    private ServerFacts readFacts(Instant now, boolean opening) throws SQLException {
        boolean systemIdKnown = facts != null && facts.systemIdentifier() != null;
        boolean more = opening || (!systemIdKnown && systemIdReadable);
        String timeouts = "begin transaction read only;\nset local statement_timeout = " + factsTimeout.toMillis()
                + ";\nset local lock_timeout = " + factsTimeout.toMillis() + ";\n" + FACTS_SQL
                + (opening ? ";\n" + ExtensionObjects.MEMBERS : "") + (more ? "" : ";\nrollback");
        bound.watch();
        try (Statement st = connection.createStatement()) {
            // Without "more" the facts' own text already ended its transaction.
            return endTransaction(st, more, () -> {
                int versionNum;
                boolean inRecovery;
                String serverAddress;
                String database;
                String extensions;
                boolean isResultSet = st.execute(timeouts);
                while (!isResultSet) { // begin and the two settings: update counts
                    isResultSet = st.getMoreResults();
                }
                ResultTooLargeException.requireWhole(bound, limits);
                try (ResultSet rs = st.getResultSet()) {
                    rs.next();
                    versionNum = rs.getInt(1);
                    inRecovery = rs.getBoolean(2);
                    serverAddress = rs.getString(3);
                    database = rs.getString(4);
                    extensions = rs.getString(5);
                }
                if (opening) { // the extensions' objects came in the same round trip
                    st.getMoreResults();
                    try (ResultSet members = st.getResultSet()) {
                        useExtensions(ExtensionObjects.of(members), extensions);
                    }
                }
                if (!more) {
                    facts = new ServerFacts(versionNum, inRecovery, facts.systemIdentifier(), serverAddress, database, now);
                    if (!extensions.equals(extensionsRead)) {
                        readExtensions(); // created, dropped, moved or updated since: once per change
                    }
                    return facts;
                }
                if (opening) {
                    privileges = RolePrivileges.of(connection);
                }
                if (!extensions.equals(extensionsRead)) {
                    useExtensions(ExtensionObjects.read(st), extensions);
                }
                // Last: without pg_monitor it fails, and so does the rest of the transaction.
                String systemId = systemIdKnown ? facts.systemIdentifier() : readSystemIdentifier(st);
                facts = new ServerFacts(versionNum, inRecovery, systemId, serverAddress, database, now);
                return facts;
            });
        }
    }

    /**
     * Reads the extensions' objects in a read-only transaction of their own under the facts' time
     * limit: when the facts found them changed, and when the pipeline's guard did.
     */
    private ExtensionObjects readExtensions() throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("begin transaction read only;\nset local statement_timeout = " + factsTimeout.toMillis()
                    + ";\nset local lock_timeout = " + factsTimeout.toMillis());
            return endTransaction(st, true, () -> {
                String fingerprint;
                try (ResultSet rs = st.executeQuery("select " + ExtensionObjects.FINGERPRINT)) {
                    rs.next();
                    fingerprint = rs.getString(1);
                }
                ExtensionObjects objects = ExtensionObjects.read(st);
                useExtensions(objects, fingerprint);
                return objects;
            });
        }
    }

    private void useExtensions(ExtensionObjects objects, String fingerprint) {
        pipeline.useExtensions(objects, this::readExtensions);
        extensionsRead = fingerprint;
    }

    /** Work done inside a transaction that {@link #endTransaction} ends. */
    @FunctionalInterface
    private interface InTransaction<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} in the transaction {@code st} has opened and rolls it back after (when
     * {@code rollbackAfter}), and always when the work fails: nothing a read did outlives it, and
     * the failure is the one thrown, with a failed rollback suppressed in it (the session is then
     * probably gone; the caller decides).
     */
    private static <T> T endTransaction(Statement st, boolean rollbackAfter, InTransaction<T> work) throws SQLException {
        T result;
        try {
            result = work.run();
        } catch (SQLException | RuntimeException e) {
            try {
                st.execute("rollback");
            } catch (SQLException rollbackFailed) {
                e.addSuppressed(rollbackFailed);
            }
            throw e;
        }
        if (rollbackAfter) {
            st.execute("rollback");
        }
        return result;
    }

    /** pg_control_system() needs pg_monitor or superuser; without it we share by host and port. */
    private String readSystemIdentifier(Statement st) throws SQLException {
        if (!systemIdReadable) {
            return null;
        }
        try (ResultSet rs = st.executeQuery(SYSTEM_ID_SQL)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            if (classify(e) != Failure.METRIC) {
                throw e; // a slow or lost server says nothing about the privilege: try again later
            }
            systemIdReadable = false;
            return null;
        }
    }

    /**
     * Runs one reading statement of a native metric with bind parameters: in autocommit, so in a
     * transaction of its own that is read-only by the session's default, under the session's
     * statement timeout. The SQL is pgharvest's own, and held to the rules of metric SQL all the
     * same ({@link MetricSql}): one reading statement whose effects end with it.
     */
    @Override
    public List<Map<String, Object>> read(String sql, Object... parameters) throws SQLException {
        refuseUnlessNative(sql);
        bound.watch();
        return rows(sql, parameters);
    }

    /**
     * As {@link #read(String, Object...)} in an explicit read-only transaction whose
     * {@code statement_timeout} is {@code timeout} ({@code SET LOCAL}, so it ends with the
     * transaction), under {@link RoundTripDeadline} besides: a native metric's own time limit,
     * enforced as a SQL metric's is.
     */
    @Override
    public List<Map<String, Object>> read(Duration timeout, String sql, Object... parameters) throws SQLException {
        refuseUnlessNative(sql);
        bound.watch();
        try (var deadline = RoundTripDeadline.start(connection, timeout); Statement st = connection.createStatement()) {
            st.execute("begin transaction read only; set local statement_timeout = " + timeout.toMillis());
            return endTransaction(st, true, () -> rows(sql, parameters));
        }
    }

    /**
     * The friendly check of a native metric's SQL, read once per text: native metrics send the
     * same few texts of pgharvest's own on every tick (query_stats' 2 KB read was lexed 600 times a
     * minute at 300 databases, a tenth of the collector's CPU). The server's read-only transaction
     * is the boundary either way.
     */
    private void refuseUnlessNative(String sql) throws SQLException {
        Optional<String> refused = nativeVerdicts.get(sql);
        if (refused == null) {
            refused = MetricSql.problemOfNativeQuery(sql);
            if (nativeVerdicts.size() >= NATIVE_VERDICTS) {
                nativeVerdicts.clear(); // texts built with changing values: start again, never grow
            }
            nativeVerdicts.put(sql, refused);
        }
        if (refused.isPresent()) {
            throw new SQLException("refused to send a native metric's query: " + refused.get(), "42501");
        }
    }

    private List<Map<String, Object>> rows(String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            var rows = new ArrayList<Map<String, Object>>();
            try (ResultSet rs = statement.executeQuery()) {
                // Checked before any row is read: a cut result must not be delivered short.
                ResultTooLargeException.requireWhole(bound, limits);
                // One array per row over names shared by the result: query_stats' instance-wide read
                // is thousands of rows of ~30 columns, and a map per row was most of its mapping cost.
                ResultSetMetaData meta = rs.getMetaData();
                int count = meta.getColumnCount();
                var names = new ArrayList<String>(count);
                for (int c = 1; c <= count; c++) {
                    names.add(meta.getColumnLabel(c));
                }
                var columns = new RowValues.Columns(names); // pgharvest's own SQL: no label twice
                while (rs.next()) {
                    var cells = new Object[count];
                    for (int c = 0; c < count; c++) {
                        cells[c] = rs.getObject(c + 1);
                    }
                    rows.add(new RowValues(columns, cells));
                }
            }
            return rows;
        }
    }

    /** {@link PlanningSession}: the source's connection, another login. */
    @Override
    public GenericPlans.Planning openPlanning(PlanningLogin login) throws SQLException {
        return PlanningSession.open(opener, conn, login);
    }

    @Override
    public RolePrivileges privileges() {
        return privileges;
    }

    @Override
    public ServerFacts facts() {
        return facts;
    }

    @Override
    public NotReadingException refusal(MetricQuery query) {
        return pipeline.refusal(query);
    }

    @Override
    public List<FetchedRows> run(List<MetricQuery> queries) throws SQLException {
        return pipeline.run(queries);
    }

    /** What the statements before a failure returned, and which one failed ({@link QueryPipeline#runKeeping}). */
    @Override
    public RoundTrip runKeeping(List<MetricQuery> queries) {
        return pipeline.runKeeping(queries);
    }

    @Override
    public AloneRun runAlone(MetricQuery query) throws SQLException {
        return pipeline.runAlone(query);
    }

    /**
     * Gone: connection class 08, operator intervention 57P, a closed connection. Slow: statement
     * or lock timeout, a cancel (the session is fine and so is the query; the server did not
     * answer in time).
     */
    @Override
    public Failure classify(SQLException error) {
        String state = error.getSQLState();
        boolean connectionClass = state != null && (state.startsWith("08") || state.startsWith("57P"));
        try {
            if (connectionClass || connection.isClosed()) {
                return Failure.BROKEN;
            }
        } catch (SQLException e) {
            return Failure.BROKEN;
        }
        return QUERY_CANCELED.equals(state) || LOCK_NOT_AVAILABLE.equals(state) ? Failure.SLOW : Failure.METRIC;
    }

    @Override
    public boolean waitedForLock(SQLException error) {
        return LOCK_NOT_AVAILABLE.equals(error.getSQLState());
    }

    /** Positions of parse errors name the metric ({@link FailurePointer}). */
    @Override
    public Optional<MetricQuery> culprit(SQLException failure, List<MetricQuery> sent) {
        return FailurePointer.culprit(failure, sent, pipeline::sentText);
    }

    @Override
    public boolean endedByServer(SQLException error) {
        return TERMINATED.equals(error.getSQLState());
    }

    /**
     * Reads what the server sent on the idle session without sending anything: pgjdbc's
     * notification check (a read with a 1 ms timeout, about 0.26 ms of CPU on a virtual thread,
     * so only called once {@link #anythingArrived} says bytes wait) throws the error a server sends
     * before it closes its sessions (57P01 at shutdown, 57P02/57P03, a terminated backend, 57P05
     * an idle timeout).
     */
    @Override
    public boolean anythingArrived() {
        return arrived.any();
    }

    @Override
    public Optional<String> endedWhileIdle() {
        try {
            connection.unwrap(PGConnection.class).getNotifications();
            return connection.isClosed() ? Optional.of("the session was closed") : Optional.empty();
        } catch (SQLException e) {
            return Optional.of("the server ended the idle session [SQLState " + e.getSQLState() + "]: "
                    + BoundedText.messageOf(e));
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
