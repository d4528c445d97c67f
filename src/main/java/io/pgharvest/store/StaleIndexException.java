package io.pgharvest.store;

import io.pgharvest.model.StoreTable;

/**
 * A conditional write named a modify index the item no longer has: someone else changed (or
 * created, or deleted) it since the writer read it. Nothing was changed.
 */
public class StaleIndexException extends StoreException {

    private final long expected;
    private final long current;

    public StaleIndexException(StoreTable table, String name, long expected, long current) {
        super(table, name, noun(table) + " '" + name + "' "
                + (current == 0 ? "no longer exists" : expected == 0 ? "exists already" : "was changed by another writer")
                + " (modify index " + current + ", expected " + expected + "); read it again and retry");
        this.expected = expected;
        this.current = current;
    }

    /** The modify index the writer expected. */
    public long expected() {
        return expected;
    }

    /** The item's modify index now; 0 when it does not exist. */
    public long current() {
        return current;
    }
}
