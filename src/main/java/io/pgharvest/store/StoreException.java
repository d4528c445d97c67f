package io.pgharvest.store;

import io.pgharvest.model.StoreTable;

/** A write the store refused; nothing was changed, on disk or in memory. */
public abstract class StoreException extends RuntimeException {

    private final StoreTable table;
    private final String name;

    protected StoreException(StoreTable table, String name, String message) {
        super(message);
        this.table = table;
        this.name = name;
    }

    /** The table of the item; null for an item kept beside the tables (an alert rule's stale index). */
    public StoreTable table() {
        return table;
    }

    /** The name of the item the write was about. */
    public String name() {
        return name;
    }

    /** The singular word for an item of {@code table}, for messages: source, metric, preset. */
    public static String noun(StoreTable table) {
        return switch (table) {
            case SOURCES -> "source";
            case METRICS -> "metric";
            case PRESETS -> "preset";
        };
    }
}
