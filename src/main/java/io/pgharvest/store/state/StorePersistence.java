package io.pgharvest.store.state;

import io.pgharvest.model.StoreTable;
import java.util.Set;

/**
 * Where a {@link StateConfigStore} keeps its items: files in the data directory, or a PostgreSQL
 * configuration database shared by several pgharvest instances. Called under the store's write
 * lock, one write at a time: {@link #begin}, then {@link #persist} or nothing, then always
 * {@link #abandon}.
 */
public interface StorePersistence {

    /** The state at start-up, stamped: every item carries its modify index. */
    StoreState load();

    /**
     * Starts a write and returns the state it must be validated against: {@code published}, or a
     * newer state when another instance has written since (a shared store then holds a lock that
     * keeps other writers out until {@link #persist} or {@link #abandon}).
     */
    StoreState begin(StoreState published);

    /** Makes {@code next} durable, only the {@code tables} that changed; throws when it cannot, changing nothing. */
    void persist(StoreState current, StoreState next, Set<StoreTable> tables);

    /** Ends a write that was not persisted (refused, unchanged or failed); a no-op after {@link #persist}. */
    void abandon();
}
