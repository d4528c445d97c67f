package io.pgharvest.window;

import io.pgharvest.model.Measurement;

/**
 * Reads one cell of a read's raw row by the catalog's column name, as the views read it ({@link
 * ViewRows} keeps what this reads): a tag (a {@code tag_} column, kept without its prefix) or a
 * value. Numbers come back as Double, everything else as text; a cell the row lacks, or SQL NULL, is
 * null.
 */
final class Cells {

    private Cells() {
    }

    static String text(Measurement.Row row, String column) {
        String tag = row.tags().get(column);
        if (tag != null) {
            return tag;
        }
        Object value = row.values().get(column);
        return value == null ? null : value.toString();
    }

    /** The text, or "" when the row has none. */
    static String textOrEmpty(Measurement.Row row, String column) {
        String text = text(row, column);
        return text == null ? "" : text;
    }

    static Double number(Measurement.Row row, String column) {
        Object value = row.values().get(column);
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        if (value instanceof Boolean flag) {
            return flag ? 1.0 : 0.0;
        }
        String tag = row.tags().get(column);
        if (tag != null) {
            try {
                return Double.valueOf(tag);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /** Whether a 0/1 (or boolean) column is set. */
    static boolean flag(Measurement.Row row, String column) {
        Double value = number(row, column);
        return value != null && value != 0;
    }
}
