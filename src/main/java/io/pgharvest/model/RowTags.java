package io.pgharvest.model;

import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A row's tags as an immutable map of a few entries, held as two arrays in the order they were
 * given. {@link Measurement.Row} keeps its tags in this shape. The JDK's {@code Map.of} maps of
 * two or more entries (and the empty one) walk their entries through a new entry set, iterator
 * and entry object on every {@code forEach}; the sink encoders and the change detector walk every
 * row's tags, which made those walks a tenth of the collector's allocation at 300 sources. Here
 * {@link #forEach} allocates nothing and {@link #name}/{@link #value} read by position. Lookups
 * scan the names: rows have a handful of tags at most.
 */
public final class RowTags extends AbstractMap<String, String> {

    private static final String[] NONE = new String[0];
    public static final RowTags EMPTY = new RowTags(NONE, NONE);

    private final String[] names;
    private final String[] values;
    private Set<Map.Entry<String, String>> entries;

    private RowTags(String[] names, String[] values) {
        this.names = names;
        this.values = values;
    }

    /**
     * The first {@code count} names and values (copied); a repeated name keeps its last value.
     *
     * @throws NullPointerException on a null name or value, as {@code Map.of} does
     */
    public static RowTags of(String[] names, String[] values, int count) {
        if (count == 0) {
            return EMPTY;
        }
        String[] n = new String[count];
        String[] v = new String[count];
        int size = 0;
        for (int i = 0; i < count; i++) {
            String name = Objects.requireNonNull(names[i], "tag name");
            String value = values[i];
            if (value == null) {
                throw nullValue(name);
            }
            int at = indexIn(n, size, name);
            if (at >= 0) {
                v[at] = value;
            } else {
                n[size] = name;
                v[size++] = value;
            }
        }
        if (size < count) {
            n = Arrays.copyOf(n, size);
            v = Arrays.copyOf(v, size);
        }
        return new RowTags(n, v);
    }

    /**
     * Tags whose names array is shared with other rows of the same result: {@code names} must hold
     * distinct names and never change afterwards; {@code values} (no null, one per name) belongs to
     * the map from now on. A row then costs this object and its values array.
     */
    public static RowTags sharingNames(String[] names, String[] values) {
        if (names.length != values.length) {
            throw new IllegalArgumentException(values.length + " values for " + names.length + " tag names");
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                throw nullValue(names[i]);
            }
        }
        return names.length == 0 ? EMPTY : new RowTags(names, values);
    }

    /** The message is built only on failure: these checks run for every tag of every row read. */
    private static NullPointerException nullValue(String name) {
        return new NullPointerException("value of tag " + name);
    }

    /** {@code tags} in this shape: the same instance when it already is; EMPTY for null. */
    public static RowTags copyOf(Map<String, String> tags) {
        if (tags instanceof RowTags rowTags) {
            return rowTags;
        }
        if (tags == null || tags.isEmpty()) {
            return EMPTY;
        }
        String[] n = new String[tags.size()];
        String[] v = new String[tags.size()];
        int[] i = {0};
        tags.forEach((name, value) -> {
            n[i[0]] = name;
            v[i[0]++] = value;
        });
        return of(n, v, n.length);
    }

    /**
     * Whether these tags and {@code other} share one names array ({@link #sharingNames}: rows of
     * one result), so their names are the same, in the same order.
     */
    public boolean sharesNamesWith(RowTags other) {
        return other != null && names == other.names;
    }

    /** The name of tag {@code i}, {@code 0 <= i < size()}. */
    public String name(int i) {
        return names[i];
    }

    /** The value of tag {@code i}. */
    public String value(int i) {
        return values[i];
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String name && indexIn(names, names.length, name) >= 0;
    }

    @Override
    public String get(Object key) {
        int at = key instanceof String name ? indexIn(names, names.length, name) : -1;
        return at < 0 ? null : values[at];
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        for (int i = 0; i < names.length; i++) {
            action.accept(names[i], values[i]);
        }
    }

    @Override
    public Set<Map.Entry<String, String>> entrySet() {
        if (entries == null) {
            entries = new IndexedEntries<>(names, values);
        }
        return entries;
    }

    private static int indexIn(String[] names, int size, String name) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
