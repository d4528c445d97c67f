package io.pgharvest.architecture.violations.store.file;

import io.pgharvest.architecture.violations.store.postgres.PostgresStoreKind;

/** Violates the rule that the file store and the PostgreSQL store never import each other. */
public final class FileStoreNamingThePostgresStore {

    public long index() {
        return new PostgresStoreKind().index();
    }
}
