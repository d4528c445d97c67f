package io.pgharvest.architecture.violations.store.postgres;

import io.pgharvest.architecture.violations.store.StoreContract;

/** A PostgreSQL store that implements the contract and names no other store. */
public final class PostgresStoreKind implements StoreContract {

    @Override
    public long index() {
        return 1;
    }
}
