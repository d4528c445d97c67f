package io.pgharvest.architecture.violations.store;

/** A store's contract that knows none of its implementations: passes every store rule. */
public interface StoreContract {

    long index();
}
