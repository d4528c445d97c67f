package io.pgharvest.store;

import io.pgharvest.model.StoreTable;

/**
 * What a write expects of the item it replaces or deletes: nothing, or Consul's check-and-set, the
 * modify index the writer read. The store checks it under its write lock against the freshest
 * state (on a shared configuration database: after locking the store index row), so of two writers
 * that read the same index exactly one succeeds. An expected index of 0 means "no such item yet".
 */
public final class WriteCondition {

    private static final WriteCondition ANY = new WriteCondition(-1);

    private final long expected;

    private WriteCondition(long expected) {
        this.expected = expected;
    }

    /** An unconditional write. */
    public static WriteCondition any() {
        return ANY;
    }

    /**
     * A write that succeeds only while the item's modify index is still {@code modifyIndex}.
     *
     * @throws IllegalArgumentException if it is negative (the API refuses that before it gets here)
     */
    public static WriteCondition modifyIndex(long modifyIndex) {
        if (modifyIndex < 0) {
            throw new IllegalArgumentException("a modify index is never negative: " + modifyIndex);
        }
        return new WriteCondition(modifyIndex);
    }

    /** @throws StaleIndexException if the item's index is no longer the expected one */
    public void check(StoreTable table, String name, long actual) {
        if (expected >= 0 && expected != actual) {
            throw new StaleIndexException(table, name, expected, actual);
        }
    }

    /**
     * The same check for an item kept beside the configuration store's tables (an alert rule):
     * {@code noun} names its kind in the message.
     *
     * @throws StaleIndexException if the item's index is no longer the expected one
     */
    public void check(String noun, String name, long actual) {
        if (expected >= 0 && expected != actual) {
            throw new StaleIndexException(noun, name, expected, actual);
        }
    }

    @Override
    public String toString() {
        return expected < 0 ? "any" : "cas=" + expected;
    }

    /**
     * A conditional write named a modify index the item no longer has: someone else changed (or
     * created, or deleted) it since the writer read it. Nothing was changed.
     */
    public static final class StaleIndexException extends StoreException {

        private final long expected;
        private final long current;

        public StaleIndexException(StoreTable table, String name, long expected, long current) {
            super(table, name, message(noun(table), name, expected, current));
            this.expected = expected;
            this.current = current;
        }

        /** For an item outside the store's tables: {@link #table()} is null. */
        public StaleIndexException(String noun, String name, long expected, long current) {
            super(null, name, message(noun, name, expected, current));
            this.expected = expected;
            this.current = current;
        }

        private static String message(String noun, String name, long expected, long current) {
            return noun + " '" + name + "' "
                    + (current == 0 ? "no longer exists" : expected == 0 ? "exists already" : "was changed by another writer")
                    + " (modify index " + current + ", expected " + expected + "); read it again and retry";
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
}
