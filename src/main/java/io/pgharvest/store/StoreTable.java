package io.pgharvest.store;

/** The tables of the configuration store; each has its own {@link ChangeNotifier}. */
public enum StoreTable {
    SOURCES, METRICS, PRESETS
}
