package io.pgharvest.store;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.store.file.FileConfigStore;
import java.nio.file.Path;
import java.time.Duration;

/** The real file store outside Spring, for tests of the components built on it. */
public final class TestStores {

    private TestStores() {
    }

    public static ConfigStore inDirectory(Path dataDir) {
        var properties = new HarvestProperties(dataDir, new HarvestProperties.Api(null), Duration.ofSeconds(5));
        return new FileConfigStore(new DataDirectory(properties));
    }
}
