package io.pgharvest.architecture.violations.api;

/** Imports the store, as the api may; with StoreCallingTheApi it closes a cycle. */
public final class ApiCallingTheStore {

    public Object store() {
        return new io.pgharvest.architecture.violations.store.StoreCallingTheApi();
    }
}
