package io.pgharvest.architecture.violations.store;

/** Violates the layering rule (store is below api) and, with ApiCallingTheStore, the cycle rule. */
public final class StoreCallingTheApi {

    public Object answer() {
        return new io.pgharvest.architecture.violations.api.ApiCallingTheStore();
    }
}
