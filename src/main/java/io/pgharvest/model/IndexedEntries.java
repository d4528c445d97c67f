package io.pgharvest.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The entry set of a map held as parallel arrays of names and values ({@link RowValues},
 * {@link RowTags}): walks them in order and makes an entry only for the caller that asks for one
 * (the maps' own {@code forEach} makes none).
 */
final class IndexedEntries<V> extends AbstractSet<Map.Entry<String, V>> {

    private final String[] names;
    private final V[] values;

    /** @param values one per name, in the same order; neither array is copied */
    IndexedEntries(String[] names, V[] values) {
        this.names = names;
        this.values = values;
    }

    @Override
    public Iterator<Map.Entry<String, V>> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < values.length;
            }

            @Override
            public Map.Entry<String, V> next() {
                if (next >= values.length) {
                    throw new NoSuchElementException();
                }
                int i = next++;
                return new AbstractMap.SimpleImmutableEntry<>(names[i], values[i]);
            }
        };
    }

    @Override
    public int size() {
        return values.length;
    }
}
