package io.pgharvest.kind.pooler;

import io.pgharvest.model.Measurement;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A session on an admin console (pgbouncer's, pgpool's): a monitored endpoint that is not a
 * PostgreSQL server, reached with {@link AdminConsoleClient} and opened by {@link AdminConsoleOpener}. The
 * consoles differ only in the command that names their version ({@link AdminConsoleDialect}). The
 * engine sees it as a {@code kind.SourceSession} through {@link AdminConsoleSourceSession}.
 *
 * <p>Such endpoints run one command per round trip, have no transactions and no server-side
 * statement timeout; the limits given here are enforced by the client.
 */
public final class AdminConsoleClientSession implements AutoCloseable {

    private static final int BOOL = 16;
    private static final int INT8 = 20;
    private static final int INT2 = 21;
    private static final int INT4 = 23;
    private static final int OID = 26;
    private static final int FLOAT4 = 700;
    private static final int FLOAT8 = 701;
    private static final int NUMERIC = 1700;

    private static final String WRONG_ENDPOINT = "08P01";

    private final AdminConsoleClient client;
    private final AdminConsoleDialect dialect;
    private final String version;

    private AdminConsoleClientSession(AdminConsoleClient client, AdminConsoleDialect dialect, String version) {
        this.client = client;
        this.dialect = dialect;
        this.version = version;
    }

    /**
     * Asks the logged-in console for its version, which also proves that it is the kind of
     * endpoint the source says: a PostgreSQL server or a pooled database answers the version
     * command with an error, and every metric would fail the same way. Closes the client on
     * failure.
     */
    static AdminConsoleClientSession start(AdminConsoleClient client, AdminConsoleDialect dialect, Duration timeout)
            throws SQLException {
        String command = dialect.versionCommand();
        try {
            AdminConsoleClient.Result result = client.query(command, timeout);
            if (result.rows().isEmpty() || result.rows().getFirst().isEmpty()) {
                throw new SQLException("'" + command + "' returned nothing", WRONG_ENDPOINT);
            }
            return new AdminConsoleClientSession(client, dialect, result.rows().getFirst().getFirst());
        } catch (SQLException e) {
            client.close();
            if (AdminConsoleClient.CONNECTION_FAILURE.equals(e.getSQLState())) {
                throw e;
            }
            throw new SQLException("not " + dialect.description() + ": '" + command + "' failed [" + e.getMessage()
                    + "]", WRONG_ENDPOINT, e);
        }
    }

    public String version() {
        return version;
    }

    public AdminConsoleDialect dialect() {
        return dialect;
    }

    public List<Measurement.Row> run(String command, Duration timeout) throws SQLException {
        AdminConsoleClient.Result result = client.query(command, timeout);
        var rows = new ArrayList<Measurement.Row>(result.rows().size());
        for (List<String> cells : result.rows()) {
            Map<String, Object> values = new LinkedHashMap<>();
            for (int i = 0; i < cells.size(); i++) {
                values.put(result.columns().get(i), value(cells.get(i), result.types().get(i)));
            }
            rows.add(new Measurement.Row(values, Map.of()));
        }
        return rows;
    }

    /** Text to the value a PostgreSQL source would deliver for the same type. */
    static Object value(String text, int type) {
        if (text == null) {
            return null;
        }
        try {
            return switch (type) {
                case INT2, INT4, INT8, OID -> Long.parseLong(text);
                case FLOAT4, FLOAT8 -> finiteOrNull(Double.parseDouble(text));
                case NUMERIC -> text.equals("NaN") || text.endsWith("Infinity") ? null : new BigDecimal(text);
                case BOOL -> text.equals("t") || text.equals("true");
                default -> text;
            };
        } catch (NumberFormatException e) {
            return text; // a console that labels text as a number: keep what it said
        }
    }

    private static Double finiteOrNull(double value) {
        return Double.isFinite(value) ? value : null;
    }

    /**
     * Only a closed client is broken: the client closes itself when the connection fails or a
     * command outlives its limit. An ErrorResponse is followed by ReadyForQuery and leaves the
     * session usable, whatever its SQLSTATE: pgbouncer reports an unknown command as 08P01,
     * which on PostgreSQL would mean a lost connection.
     */
    public boolean isBroken(SQLException error) {
        return client.isClosed();
    }

    @Override
    public void close() {
        client.close();
    }
}
