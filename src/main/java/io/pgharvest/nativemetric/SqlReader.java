package io.pgharvest.nativemetric;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * Runs a native metric's reading query on the source's own session: one statement, bind
 * parameters, in a read-only transaction of its own under the session's statement timeout.
 * Nothing it does outlives the statement.
 */
@FunctionalInterface
public interface SqlReader {

    /** The rows, column label to value (a {@code bytea} is a {@code byte[]}). */
    List<Map<String, Object>> query(String sql, Object... parameters) throws SQLException;
}
