package io.pgharvest.model;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The values of one result row as an immutable, ordered map that shares its column names with
 * every other row of the same result: one {@link Columns} per result, one {@code Object[]} per
 * row. A row held as a {@code LinkedHashMap} costs an entry object per cell, and the copy
 * {@link Measurement.Row} makes of a plain map another one; this costs an array per row. Values
 * may be null (SQL NULL). {@link #forEach} walks the cells without allocating.
 */
public final class RowValues extends AbstractMap<String, Object> {

    private final Columns columns;
    private final Object[] values;
    private Set<Map.Entry<String, Object>> entries;

    /**
     * @param values one value per column, in column order; owned by this map from now on (the
     *     caller must not change it)
     */
    public RowValues(Columns columns, Object[] values) {
        if (values.length != columns.names.length) {
            throw new IllegalArgumentException(values.length + " values for " + columns.names.length + " columns");
        }
        this.columns = columns;
        this.values = values;
    }

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return columns.index.containsKey(key);
    }

    @Override
    public Object get(Object key) {
        Integer i = columns.index.get(key);
        return i == null ? null : values[i];
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super Object> action) {
        String[] names = columns.names;
        for (int i = 0; i < names.length; i++) {
            action.accept(names[i], values[i]);
        }
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        if (entries == null) {
            entries = new IndexedEntries<>(columns.names, values);
        }
        return entries;
    }

    /** The value of column {@code i}, in the order of {@link #columns()}. */
    public Object value(int i) {
        return values[i];
    }

    /** The names of this row's columns, shared with the other rows of its result. */
    public Columns columns() {
        return columns;
    }

    /**
     * This row without one of its columns, as a row of {@code reduced}, which must be
     * {@code columns().without(column)} (made once per result and shared by its rows): one array
     * per row, no map.
     */
    public RowValues without(String column, Columns reduced) {
        Integer skipped = columns.index.get(column);
        if (skipped == null) {
            return this;
        }
        Object[] kept = new Object[values.length - 1];
        System.arraycopy(values, 0, kept, 0, skipped);
        System.arraycopy(values, skipped + 1, kept, skipped, values.length - skipped - 1);
        return new RowValues(reduced, kept);
    }

    /** The column names of one result, shared by its rows. */
    public static final class Columns {
        private final String[] names;
        private final Map<String, Integer> index;

        /** @throws IllegalArgumentException on a repeated name (a map cannot hold it twice) */
        public Columns(List<String> names) {
            this.names = names.toArray(String[]::new);
            this.index = new HashMap<>(this.names.length * 2);
            for (int i = 0; i < this.names.length; i++) {
                if (index.put(this.names[i], i) != null) {
                    throw new IllegalArgumentException("column " + this.names[i] + " appears twice");
                }
            }
        }

        public int size() {
            return names.length;
        }

        /** The name of column {@code i}, in column order. */
        public String name(int i) {
            return names[i];
        }

        /** These names without {@code name}, in the same order. */
        public Columns without(String name) {
            var kept = new ArrayList<String>(names.length);
            for (String n : names) {
                if (!n.equals(name)) {
                    kept.add(n);
                }
            }
            return new Columns(kept);
        }
    }
}
