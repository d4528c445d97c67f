package io.pgharvest.store.file;

import io.pgharvest.model.StoreTable;
import java.nio.file.Path;

/** The files of the file store inside the data directory. */
record StoreFiles(Path sources, Path metrics, Path index) {

    static final String SOURCES = "sources.yaml";
    static final String METRICS = "metrics.yaml";
    static final String INDEX = "store-index.yaml";

    static StoreFiles in(Path dataDir) {
        return new StoreFiles(dataDir.resolve(SOURCES), dataDir.resolve(METRICS), dataDir.resolve(INDEX));
    }

    /** The file that holds {@code table}'s items: metrics and presets share {@code metrics.yaml}. */
    Path of(StoreTable table) {
        return table == StoreTable.SOURCES ? sources : metrics;
    }
}
