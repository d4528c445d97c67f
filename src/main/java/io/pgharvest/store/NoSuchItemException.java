package io.pgharvest.store;

import io.pgharvest.model.StoreTable;

/** The named item does not exist. */
public class NoSuchItemException extends StoreException {

    public NoSuchItemException(StoreTable table, String name) {
        super(table, name, noun(table) + " '" + name + "' does not exist");
    }
}
