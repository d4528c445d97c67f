package io.pgharvest.architecture.violations.reaper;

import io.pgharvest.architecture.violations.store.postgres.PostgresStoreKind;

/** Violates the rule that only the store's choice names a store implementation. */
public final class ReaperOpeningAStore {

    public long index() {
        return new PostgresStoreKind().index();
    }
}
