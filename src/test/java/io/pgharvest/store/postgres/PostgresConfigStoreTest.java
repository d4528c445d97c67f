package io.pgharvest.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStoreContract;
import io.pgharvest.store.state.DuplicateItemException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the configuration database adds to the store contract: several instances on one store. */
class PostgresConfigStoreTest {

    private final List<PostgresConfigStore> opened = new ArrayList<>();
    private String url;

    @BeforeEach
    void createDatabase() {
        url = PostgresStores.newDatabase("store_instances");
    }

    @AfterEach
    void closeStores() {
        opened.forEach(PostgresConfigStore::close);
    }

    private PostgresConfigStore open(Duration pollInterval) {
        PostgresConfigStore store = PostgresConfigStore.open(url, pollInterval);
        opened.add(store);
        return store;
    }

    @Test
    void aWriteOnOneInstanceWakesABlockedWaiterOnAnother() throws Exception {
        PostgresConfigStore writer = open(Duration.ofMillis(500));
        PostgresConfigStore reader = open(Duration.ofMillis(500));
        long seen = reader.changes(StoreTable.SOURCES).index();
        CompletableFuture<Long> woken = CompletableFuture.supplyAsync(
                () -> ConfigStoreContract.await(reader, StoreTable.SOURCES, seen));

        long written = writer.createSource(ConfigStoreContract.source("a")).modifyIndex();

        // Woken by the notification; the bound of one poll interval is the design's, not asserted here.
        assertThat(woken.get()).isEqualTo(written);
        assertThat(reader.snapshot().sources()).containsKey("a");
        assertThat(reader.snapshot().modifyIndex(StoreTable.SOURCES, "a")).isEqualTo(written);
    }

    @Test
    void pollingFindsAChangeWhoseNotificationWasNeverSent() throws Exception {
        PostgresConfigStore reader = open(Duration.ofMillis(200));
        long seen = reader.changes().index();
        try (PostgresConfigStore writer = PostgresConfigStore.open(url, Duration.ofMillis(200))) {
            writer.createSource(ConfigStoreContract.source("a"));
        }
        // Committed without NOTIFY: only the poll can find it.
        var server = io.pgharvest.testsupport.TestPostgres.shared();
        server.execute("store_instances", "UPDATE pgharvest_config.store_index SET store_index = store_index + 1,"
                + " sources_index = store_index + 1; UPDATE pgharvest_config.store_item SET modify_index ="
                + " (SELECT store_index FROM pgharvest_config.store_index), body = jsonb_set(body, '{group}', '\"x\"')"
                + " WHERE name = 'a'");

        long index = ConfigStoreContract.await(reader, null, seen + 1);

        assertThat(index).isEqualTo(seen + 2);
        assertThat(reader.snapshot().sources().get("a").group()).isEqualTo("x");
    }

    @Test
    void writersOnSeveralInstancesAreSerializedAndEachSeesTheOthersItems() throws Exception {
        PostgresConfigStore first = open(Duration.ofMillis(500));
        PostgresConfigStore second = open(Duration.ofMillis(500));
        long before = first.snapshot().index();

        List<CompletableFuture<Long>> writes = IntStream.range(0, 20).mapToObj(i -> CompletableFuture.supplyAsync(
                () -> (i % 2 == 0 ? first : second).createSource(ConfigStoreContract.source("s" + i)).modifyIndex()))
                .toList();
        List<Long> indexes = writes.stream().map(CompletableFuture::join).sorted().toList();

        assertThat(indexes).containsExactlyElementsOf(LongRange.of(before + 1, before + 20));
        assertThat(ConfigStoreContract.await(first, null, before + 19)).isEqualTo(before + 20);
        assertThat(ConfigStoreContract.await(second, null, before + 19)).isEqualTo(before + 20);
        assertThat(first.snapshot()).isEqualTo(second.snapshot());
        assertThatThrownBy(() -> second.createSource(ConfigStoreContract.source("s0")))
                .isInstanceOf(DuplicateItemException.class);
    }

    @Test
    void anUnreachableDatabaseStopsStartUpNamingTheProperty() {
        assertThatThrownBy(() -> PostgresConfigStore.open("postgresql://u:secret@127.0.0.1:1/none", Duration.ofMillis(500)))
                .hasMessageContaining("pgharvest.store.url").hasMessageNotContaining("secret");
    }

    private static final class LongRange {
        static List<Long> of(long from, long to) {
            return java.util.stream.LongStream.rangeClosed(from, to).boxed().toList();
        }
    }
}
