package io.pgharvest.nativemetric;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * State the native metrics of one source share (query_plans plans the statements query_stats ranks,
 * from the texts query_texts read). Owned by the source's reaper, used by its thread only, and
 * dropped with it, so nothing a source shared outlives the source.
 */
public final class SourceShelf {

    private final Map<Class<?>, Object> items = new HashMap<>();

    /** The item of this type, made by {@code create} the first time it is asked for. */
    public <T> T item(Class<T> type, Supplier<T> create) {
        return type.cast(items.computeIfAbsent(type, t -> create.get()));
    }
}
