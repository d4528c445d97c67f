package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The rows of one read as the database views keep them: only the columns a view reads, one array a
 * column - texts as strings shared within the read (a schema, a state, a user once), numbers as
 * doubles with NaN for null - and no array for a column the read lacks. A source's 1,000 tables hold
 * some 150 KB a metric so, against 1.3 MB as the raw rows' maps (docs/console.md). Built on the
 * window's feed thread, then immutable: API requests read it from any thread.
 */
final class ViewRows {

    static final ViewRows EMPTY = new ViewRows(Columns.of(List.of(), List.of()), new String[0][], new double[0][], 0, 0);

    /** Estimated bytes of the object and its two arrays of columns. */
    private static final long FIXED_BYTES = 64;

    /**
     * What a view reads of one metric: its text and its number columns (a cell is read as the
     * catalog's column, tag or value, by {@link Cells}), and which rows of a read it shows at all.
     */
    record Columns(List<String> texts, List<String> numbers, UnaryOperator<List<Measurement.Row>> shown) {

        Columns {
            texts = List.copyOf(texts);
            numbers = List.copyOf(numbers);
        }

        static Columns of(List<String> texts, List<String> numbers) {
            return new Columns(texts, numbers, UnaryOperator.identity());
        }
    }

    private final Columns columns;
    private final String[][] texts;
    private final double[][] numbers;
    private final int size;
    private final long bytes;

    private ViewRows(Columns columns, String[][] texts, double[][] numbers, int size, long bytes) {
        this.columns = columns;
        this.texts = texts;
        this.numbers = numbers;
        this.size = size;
        this.bytes = bytes;
    }

    /** The compact form of the rows {@code columns} shows of {@code read}. */
    static ViewRows compact(Columns columns, List<Measurement.Row> read) {
        List<Measurement.Row> rows = columns.shown().apply(read);
        int size = rows.size();
        long bytes = FIXED_BYTES;
        var shared = new HashMap<String, String>();
        var texts = new String[columns.texts().size()][];
        for (int c = 0; c < texts.length; c++) {
            String column = columns.texts().get(c);
            var cells = new String[size];
            boolean any = false;
            for (int r = 0; r < size; r++) {
                String text = Cells.text(rows.get(r), column);
                if (text != null) {
                    String before = shared.putIfAbsent(text, text);
                    cells[r] = before != null ? before : text;
                    bytes += before != null ? 0 : 40 + 2L * text.length();
                    any = true;
                }
            }
            texts[c] = any ? cells : null;
            bytes += any ? 16 + 4L * size : 0;
        }
        var numbers = new double[columns.numbers().size()][];
        for (int c = 0; c < numbers.length; c++) {
            String column = columns.numbers().get(c);
            var cells = new double[size];
            boolean any = false;
            for (int r = 0; r < size; r++) {
                Double number = Cells.number(rows.get(r), column);
                cells[r] = number == null ? Double.NaN : number;
                any |= number != null;
            }
            numbers[c] = any ? cells : null;
            bytes += any ? 16 + 8L * size : 0;
        }
        return new ViewRows(columns, texts, numbers, size, bytes);
    }

    int size() {
        return size;
    }

    /** What the memory budget holds for these rows: the arrays, 4 bytes a reference, 40 and 2 a character a string. */
    long bytes() {
        return bytes;
    }

    /** The rows in the read's order. */
    List<Row> rows() {
        return new AbstractList<>() {
            @Override
            public Row get(int index) {
                return new Row(index);
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** One row, read by the catalog's column name as {@link Cells} reads a raw row. */
    final class Row {

        private final int index;

        private Row(int index) {
            this.index = index;
        }

        /** The text of the cell, null when the row has none. */
        String text(String column) {
            String[] cells = texts[slot(columns.texts(), column)];
            return cells == null ? null : cells[index];
        }

        /** The text, or "" when the row has none. */
        String textOrEmpty(String column) {
            String text = text(column);
            return text == null ? "" : text;
        }

        /** The number of the cell, null when the row has none (a NaN read reads as none too). */
        Double number(String column) {
            double[] cells = numbers[slot(columns.numbers(), column)];
            return cells == null || Double.isNaN(cells[index]) ? null : cells[index];
        }

        /** Whether a 0/1 (or boolean) column is set. */
        boolean flag(String column) {
            Double value = number(column);
            return value != null && value != 0;
        }

        private static int slot(List<String> kept, String column) {
            int slot = kept.indexOf(column);
            if (slot < 0) { // a view reading a column it did not declare: a defect, shown, not a silent null
                throw new IllegalArgumentException("column " + column + " is not kept for the views; kept: " + kept);
            }
            return slot;
        }
    }

    /** The columns of each metric kept, merged from the views' declarations (each metric feeds one view). */
    static Map<String, Columns> merged(List<Map<String, Columns>> declarations) {
        var all = new HashMap<String, Columns>();
        declarations.forEach(all::putAll);
        return Map.copyOf(all);
    }
}
