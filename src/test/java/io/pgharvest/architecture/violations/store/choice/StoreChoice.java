package io.pgharvest.architecture.violations.store.choice;

import io.pgharvest.architecture.violations.store.StoreContract;
import io.pgharvest.architecture.violations.store.file.FileStoreKind;
import io.pgharvest.architecture.violations.store.postgres.PostgresStoreKind;

/** The one place allowed to name both store implementations. */
public final class StoreChoice {

    public StoreContract open(boolean database) {
        return database ? new PostgresStoreKind() : new FileStoreKind();
    }
}
