package io.pgharvest.store.state;

import io.pgharvest.model.StoreTable;
import io.pgharvest.store.StoreException;

/** A delete named a built-in metric or preset that the operator has not overridden. */
public class BuiltInItemException extends StoreException {

    public BuiltInItemException(StoreTable table, String name) {
        super(table, name, noun(table) + " '" + name + "' is built into pgharvest and cannot be deleted;"
                + " replace it with PUT to define your own version, or leave it out of your presets and sources");
    }
}
