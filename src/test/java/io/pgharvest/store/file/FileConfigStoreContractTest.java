package io.pgharvest.store.file;

import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.ConfigStoreContract;
import io.pgharvest.store.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileConfigStoreContractTest extends ConfigStoreContract {

    @TempDir
    Path dataDir;

    @Override
    protected ConfigStore open() {
        return TestStores.inDirectory(dataDir);
    }
}
