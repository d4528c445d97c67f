package io.pgharvest.reaper;

import io.pgharvest.sink.Measurement;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a metric's result set into rows: numbers stay numbers, NaN and infinities become null
 * (no sink can store them as numbers), {@code tag_*} columns become row tags and an
 * {@code epoch_ns} column becomes the measurement time, as in pgwatch's metric conventions.
 */
final class ResultSetMapper {

    static final String EPOCH_NS = "epoch_ns";
    static final String TAG_PREFIX = "tag_";

    private ResultSetMapper() {
    }

    static FetchedRows read(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int columns = meta.getColumnCount();
        var rows = new ArrayList<Measurement.Row>();
        Instant reported = null;
        while (rs.next()) {
            var values = new LinkedHashMap<String, Object>();
            var tags = new LinkedHashMap<String, String>();
            for (int i = 1; i <= columns; i++) {
                String name = meta.getColumnLabel(i);
                if (name.equals(EPOCH_NS)) {
                    long nanos = rs.getLong(i);
                    if (!rs.wasNull() && reported == null) {
                        reported = Instant.ofEpochSecond(0, nanos);
                    }
                } else if (name.startsWith(TAG_PREFIX) && name.length() > TAG_PREFIX.length()) {
                    String tag = rs.getString(i);
                    if (tag != null) {
                        tags.put(name.substring(TAG_PREFIX.length()), tag);
                    }
                } else {
                    values.put(name, value(rs, i, meta.getColumnType(i)));
                }
            }
            rows.add(new Measurement.Row(values, Map.copyOf(tags)));
        }
        return new FetchedRows(List.copyOf(rows), reported);
    }

    private static Object value(ResultSet rs, int column, int sqlType) throws SQLException {
        Object value = switch (sqlType) {
            case Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.TINYINT -> rs.getLong(column);
            case Types.REAL, Types.FLOAT, Types.DOUBLE -> finiteOrNull(rs.getDouble(column));
            case Types.NUMERIC, Types.DECIMAL -> numeric(rs.getString(column));
            case Types.BOOLEAN, Types.BIT -> rs.getBoolean(column);
            default -> rs.getString(column);
        };
        return rs.wasNull() ? null : value;
    }

    private static Double finiteOrNull(double value) {
        return Double.isFinite(value) ? value : null;
    }

    /** numeric can hold NaN and (since PostgreSQL 14) infinities, which BigDecimal cannot. */
    private static BigDecimal numeric(String text) {
        if (text == null || text.equals("NaN") || text.endsWith("Infinity")) {
            return null;
        }
        return new BigDecimal(text);
    }
}
