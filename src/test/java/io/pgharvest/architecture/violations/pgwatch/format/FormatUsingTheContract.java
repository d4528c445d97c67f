package io.pgharvest.architecture.violations.pgwatch.format;

import io.pgharvest.architecture.violations.store.StoreContract;

/** pgwatch's format writing what the store's contract gives it: passes the format's rule. */
public final class FormatUsingTheContract {

    public String write(StoreContract store) {
        return "index: " + store.index();
    }
}
