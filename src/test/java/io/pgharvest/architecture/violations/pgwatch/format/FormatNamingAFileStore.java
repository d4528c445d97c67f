package io.pgharvest.architecture.violations.pgwatch.format;

import io.pgharvest.architecture.violations.store.file.FileStoreKind;

/** Violates the rule that pgwatch's format imports only the store's contract. */
public final class FormatNamingAFileStore {

    public long index() {
        return new FileStoreKind().index();
    }
}
