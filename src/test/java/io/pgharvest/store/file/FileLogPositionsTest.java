package io.pgharvest.store.file;

import io.pgharvest.store.LogPositions;
import io.pgharvest.store.LogPositionsContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileLogPositionsTest extends LogPositionsContract {

    @TempDir
    Path dataDir;

    @Override
    protected LogPositions open() {
        return new FileLogPositions(dataDir.resolve(FileLogPositions.FILE_NAME));
    }
}
