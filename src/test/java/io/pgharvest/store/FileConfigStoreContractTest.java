package io.pgharvest.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileConfigStoreContractTest extends ConfigStoreContract {

    @TempDir
    Path dataDir;

    @Override
    ConfigStore open() {
        return TestStores.inDirectory(dataDir);
    }
}
