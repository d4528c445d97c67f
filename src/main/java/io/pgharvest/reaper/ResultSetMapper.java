package io.pgharvest.reaper;

import io.pgharvest.model.Measurement;
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
public final class ResultSetMapper {

    static final String EPOCH_NS = "epoch_ns";
    static final String TAG_PREFIX = "tag_";
    /** Pseudo SQL types for the columns read specially (java.sql.Types uses neither value). */
    private static final int EPOCH_COLUMN = Integer.MIN_VALUE;
    private static final int TAG_COLUMN = Integer.MIN_VALUE + 1;

    private ResultSetMapper() {
    }

    /** Reads every row of {@code rs} (public for the benchmark's naive collector, which maps rows the same way). */
    public static FetchedRows read(ResultSet rs) throws SQLException {
        // Column names and types once per result, not per cell: pgjdbc resolves a type through
        // a synchronized cache lookup on every call.
        ResultSetMetaData meta = rs.getMetaData();
        int columns = meta.getColumnCount();
        String[] names = new String[columns + 1];
        int[] types = new int[columns + 1];
        for (int i = 1; i <= columns; i++) {
            String label = meta.getColumnLabel(i);
            if (label.equals(EPOCH_NS)) {
                types[i] = EPOCH_COLUMN;
            } else if (label.startsWith(TAG_PREFIX) && label.length() > TAG_PREFIX.length()) {
                types[i] = TAG_COLUMN;
                label = label.substring(TAG_PREFIX.length());
            } else {
                types[i] = meta.getColumnType(i);
            }
            names[i] = label;
        }
        var rows = new ArrayList<Measurement.Row>();
        Instant reported = null;
        while (rs.next()) {
            var values = new LinkedHashMap<String, Object>();
            var tags = new LinkedHashMap<String, String>();
            for (int i = 1; i <= columns; i++) {
                switch (types[i]) {
                    case EPOCH_COLUMN -> {
                        long nanos = rs.getLong(i);
                        if (!rs.wasNull() && reported == null) {
                            reported = Instant.ofEpochSecond(0, nanos);
                        }
                    }
                    case TAG_COLUMN -> {
                        String tag = rs.getString(i);
                        if (tag != null) {
                            tags.put(names[i], tag);
                        }
                    }
                    default -> values.put(names[i], value(rs, i, types[i]));
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
