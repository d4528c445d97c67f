package io.pgharvest.store;

import io.pgharvest.config.DataDirectory;

/**
 * The embedded configuration store, the default: YAML files in the data directory
 * ({@code sources.yaml}, {@code metrics.yaml}, {@code store-index.yaml}), all in memory as one
 * immutable {@link StoreState}. A failed file write leaves the published state as it was.
 */
class FileConfigStore extends StateConfigStore {

    FileConfigStore(DataDirectory dataDirectory) {
        super(new FileStorePersistence(StoreFiles.in(dataDirectory.path())));
    }
}
