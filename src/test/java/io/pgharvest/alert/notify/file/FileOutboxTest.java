package io.pgharvest.alert.notify.file;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.dispatch.OutboxContractTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The outbox in the data directory's files (the embedded store). */
class FileOutboxTest extends OutboxContractTest {

    @TempDir
    Path dataDir;

    @Override
    protected NotifyStore openStore() {
        return new FileNotifyStore(dataDir);
    }

    @Test
    void aDamagedReceiversFileStopsTheStoreWithoutQuotingIt(@TempDir Path damaged) throws IOException {
        Files.writeString(damaged.resolve("alert-receivers.json"),
                "{\"receivers\": [{\"name\": \"hook\", \"type\": \"webhook\", \"options\": {\"secret\": \"s3cret-in-the-file\"");

        assertThatThrownBy(() -> new FileNotifyStore(damaged)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("alert-receivers.json").hasMessageContaining(damaged.toString())
                .message().doesNotContain("s3cret-in-the-file", "hook");
    }
}
