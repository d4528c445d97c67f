package io.pgharvest.architecture.violations.store.file;

import io.pgharvest.architecture.violations.store.StoreContract;

/** A file store that implements the contract and names no other store. */
public final class FileStoreKind implements StoreContract {

    @Override
    public long index() {
        return 0;
    }
}
