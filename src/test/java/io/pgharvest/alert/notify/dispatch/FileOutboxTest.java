package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.NotifyStore;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The outbox in the data directory's files (the embedded store). */
class FileOutboxTest extends OutboxContractTest {

    @TempDir
    Path dataDir;

    @Override
    protected NotifyStore openStore() {
        return new io.pgharvest.alert.notify.file.FileNotifyStore(dataDir);
    }
}
