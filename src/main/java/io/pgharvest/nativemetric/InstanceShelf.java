package io.pgharvest.nativemetric;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * State one native metric's collectors share across the databases of one PostgreSQL instance
 * (query_stats reads pg_stat_statements, which is instance-wide, once for all of them). The
 * engine gives a metric a shared shelf only while it is collected on at least two databases of a
 * known instance; otherwise {@link #NONE}, on which {@link #isShared()} is false and every item is
 * made afresh for the caller alone, so a collector has one code path either way.
 *
 * <p>Thread-safe: the reapers of the instance's databases use it at once; what they put on it
 * must be thread-safe too.
 */
public final class InstanceShelf {

    /** A shelf that shares nothing: the metric is collected on one database of the instance only. */
    public static final InstanceShelf NONE = new InstanceShelf(false);

    private final boolean shared;
    private final ConcurrentHashMap<Class<?>, Object> items = new ConcurrentHashMap<>();

    private InstanceShelf(boolean shared) {
        this.shared = shared;
    }

    /** A shelf shared by the collectors of one metric on one instance. */
    public static InstanceShelf newShared() {
        return new InstanceShelf(true);
    }

    /** Whether other databases' collectors of the metric use this shelf. */
    public boolean isShared() {
        return shared;
    }

    /** The item of this type, made by {@code create} the first time it is asked for (every time on {@link #NONE}). */
    public <T> T item(Class<T> type, Supplier<T> create) {
        if (!shared) {
            return create.get();
        }
        return type.cast(items.computeIfAbsent(type, t -> create.get()));
    }
}
