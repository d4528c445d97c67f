package io.pgharvest.store;

/**
 * Where sources, metrics and presets live. Readers take {@link #snapshot()} (immutable, cheap);
 * writers go through the implementation's mutators, which validate, persist, publish a new
 * snapshot and advance the notifiers, in that order, so a rejected write changes nothing.
 */
public interface ConfigStore {

    /** The current configuration; never null. */
    ConfigSnapshot snapshot();

    /** The notifier of one table: its index is the store index of that table's last change. */
    ChangeNotifier changes(StoreTable table);

    /** The notifier of the store-wide index, advanced on every change of any table. */
    ChangeNotifier changes();
}
