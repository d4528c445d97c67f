package io.pgharvest.architecture.violations.store;

import io.pgharvest.architecture.violations.store.file.FileStoreKind;

/** Violates the rule that the store's contract imports none of the store's sub-packages. */
public final class StoreContractNamingItsFileStore {

    public StoreContract open() {
        return new FileStoreKind();
    }
}
