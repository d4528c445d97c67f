package io.pgharvest.store.file;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.store.state.StateConfigStore;
import io.pgharvest.store.state.StoreState;

/**
 * The embedded configuration store, the default: YAML files in the data directory
 * ({@code sources.yaml}, {@code metrics.yaml}, {@code store-index.yaml}), all in memory as one
 * immutable {@link StoreState}. A failed file write leaves the published state as it was.
 */
public class FileConfigStore extends StateConfigStore {

    public FileConfigStore(DataDirectory dataDirectory) {
        super(new FileStorePersistence(StoreFiles.in(dataDirectory.path())));
    }
}
