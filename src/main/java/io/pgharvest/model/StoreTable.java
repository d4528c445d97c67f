package io.pgharvest.model;


/** The tables of the configuration store; each has its own change notifier. */
public enum StoreTable {
    SOURCES, METRICS, PRESETS
}
