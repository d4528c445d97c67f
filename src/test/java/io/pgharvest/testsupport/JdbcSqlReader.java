package io.pgharvest.testsupport;

import io.pgharvest.nativemetric.SqlReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A {@link SqlReader} over a plain JDBC connection, for testing native metrics without an engine. */
public record JdbcSqlReader(Connection connection) implements SqlReader {

    @Override
    public List<Map<String, Object>> query(String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            var rows = new ArrayList<Map<String, Object>>();
            try (ResultSet rs = statement.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    var row = new LinkedHashMap<String, Object>();
                    for (int c = 1; c <= columns; c++) {
                        row.put(rs.getMetaData().getColumnLabel(c), rs.getObject(c));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    /** In a transaction with {@code SET LOCAL statement_timeout} (the server's half of the engine's limit). */
    @Override
    public List<Map<String, Object>> query(Duration timeout, String sql, Object... parameters) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("begin; set local statement_timeout = " + timeout.toMillis());
            try {
                return query(sql, parameters);
            } finally {
                st.execute("rollback");
            }
        }
    }
}
