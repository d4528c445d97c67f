package io.pgharvest.store;

import java.util.Objects;

/**
 * An item as the store accepted it.
 *
 * @param modifyIndex the store index of this write, also the item's new modify index
 * @param created whether the write created the item (rather than replacing one)
 */
public record Stored<T>(T item, long modifyIndex, boolean created) {

    public Stored {
        Objects.requireNonNull(item, "item");
    }
}
