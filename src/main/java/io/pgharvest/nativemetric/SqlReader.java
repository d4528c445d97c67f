package io.pgharvest.nativemetric;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Runs a native metric's reading query on the source's own session: one statement, bind
 * parameters, in a read-only transaction of its own under the session's statement timeout, or
 * under a time limit of the metric's own. Nothing it does outlives the statement.
 */
@FunctionalInterface
public interface SqlReader {

    /** The rows, column label to value (a {@code bytea} is a {@code byte[]}). */
    List<Map<String, Object>> query(String sql, Object... parameters) throws SQLException;

    /**
     * As {@link #query(String, Object...)}, under {@code timeout} instead of the session's statement
     * timeout: the server's {@code statement_timeout} for this statement alone, and pgharvest's own
     * deadline on the round trip besides (a metric's own timeout, as for SQL metrics). A reader
     * that cannot bound a statement refuses.
     */
    default List<Map<String, Object>> query(Duration timeout, String sql, Object... parameters) throws SQLException {
        throw new SQLException("this reader cannot give a statement a time limit of its own", "0A000");
    }
}
