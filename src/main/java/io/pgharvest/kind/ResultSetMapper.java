package io.pgharvest.kind;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.OutputNames;
import io.pgharvest.model.RowTags;
import io.pgharvest.model.RowValues;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns a metric's result set into rows: numbers stay numbers, NaN and infinities become null
 * (no sink can store them as numbers), {@code tag_*} columns become row tags and an
 * {@code epoch_ns} column becomes the measurement time, as in pgwatch's metric conventions. A
 * result with two columns of one name is not read: it comes back {@linkplain FetchedRows#refused
 * refused}, naming both ({@link OutputNames#repeated}), since a row would keep one value of the two.
 */
public final class ResultSetMapper {

    static final String EPOCH_NS = "epoch_ns";
    static final String TAG_PREFIX = "tag_";
    /** Pseudo SQL types for the columns read specially (java.sql.Types uses neither value). */
    private static final int EPOCH_COLUMN = Integer.MIN_VALUE;
    private static final int TAG_COLUMN = Integer.MIN_VALUE + 1;
    private static final String[] NO_TAGS = new String[0];

    private ResultSetMapper() {
    }

    /** Reads every row of {@code rs}, as every kind that reads a JDBC result set does. */
    public static FetchedRows read(ResultSet rs) throws SQLException {
        // Column names and types once per result, not per cell: pgjdbc resolves a type through
        // a synchronized cache lookup on every call.
        ResultSetMetaData meta = rs.getMetaData();
        int columns = meta.getColumnCount();
        String[] names = new String[columns + 1];
        int[] types = new int[columns + 1];
        var labels = new ArrayList<String>(columns);
        for (int i = 1; i <= columns; i++) {
            labels.add(meta.getColumnLabel(i));
        }
        Optional<String> repeated = OutputNames.repeated(labels);
        if (repeated.isPresent()) {
            return FetchedRows.refused(repeated.get());
        }
        for (int i = 1; i <= columns; i++) {
            String label = labels.get(i - 1);
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
        var valueColumns = new RowValues.Columns(valueNames(names, types));
        int tagColumns = 0;
        for (int i = 1; i <= columns; i++) {
            tagColumns += types[i] == TAG_COLUMN ? 1 : 0;
        }
        // The tag columns' names, shared by every row that has all of them (the usual case): such
        // a row's tags are this array and one array of values. A row with a NULL tag keeps a
        // compacted copy (RowTags.of).
        String[] allTagNames = tagNames(names, types, tagColumns);
        String[] presentTagNames = new String[tagColumns];
        var rows = new ArrayList<Measurement.Row>();
        Instant reported = null;
        while (rs.next()) {
            // One array per row sharing the result's column names (valueColumns), not a map per row.
            Object[] cells = new Object[valueColumns.size()];
            String[] tagValues = tagColumns == 0 ? NO_TAGS : new String[tagColumns];
            int tagCount = 0;
            int cell = 0;
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
                            presentTagNames[tagCount] = names[i];
                            tagValues[tagCount++] = tag;
                        }
                    }
                    default -> {
                        cells[cell++] = value(rs, i, types[i]);
                    }
                }
            }
            RowTags tags = tagCount == tagColumns ? RowTags.sharingNames(allTagNames, tagValues)
                    : RowTags.of(presentTagNames, tagValues, tagCount);
            rows.add(new Measurement.Row(new RowValues(valueColumns, cells), tags));
        }
        return new FetchedRows(rows, reported);
    }

    private static String[] tagNames(String[] names, int[] types, int tagColumns) {
        String[] tagNames = new String[tagColumns];
        int t = 0;
        for (int i = 1; i < names.length; i++) {
            if (types[i] == TAG_COLUMN) {
                tagNames[t++] = names[i];
            }
        }
        return tagNames;
    }

    /** The value columns' names in order (distinct: the result was checked for repeated names). */
    private static List<String> valueNames(String[] names, int[] types) {
        var valueNames = new ArrayList<String>(names.length);
        for (int i = 1; i < names.length; i++) {
            if (types[i] != EPOCH_COLUMN && types[i] != TAG_COLUMN) {
                valueNames.add(names[i]);
            }
        }
        return valueNames;
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
