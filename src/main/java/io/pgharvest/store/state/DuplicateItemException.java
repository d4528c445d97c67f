package io.pgharvest.store.state;

import io.pgharvest.model.StoreTable;
import io.pgharvest.store.StoreException;

/** A create named an item that already exists (for metrics and presets: also a built-in one). */
public class DuplicateItemException extends StoreException {

    public DuplicateItemException(StoreTable table, String name, boolean builtIn) {
        super(table, name, noun(table) + " '" + name + "' already exists"
                + (builtIn ? " as a built-in; replace it with PUT to define your own version" : ""));
    }
}
