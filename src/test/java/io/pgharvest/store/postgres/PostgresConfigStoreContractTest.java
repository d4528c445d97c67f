package io.pgharvest.store.postgres;

import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.ConfigStoreContract;
import io.pgharvest.store.WriteCondition.StaleIndexException;
import io.pgharvest.store.WriteCondition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

class PostgresConfigStoreContractTest extends ConfigStoreContract {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private final List<PostgresConfigStore> opened = new ArrayList<>();
    private String url;

    @BeforeEach
    void createDatabase() {
        url = PostgresStores.newDatabase("store_contract_" + DATABASES.incrementAndGet());
    }

    @AfterEach
    void closeStores() {
        opened.forEach(PostgresConfigStore::close);
    }

    /** Two collector instances on one configuration database: the check runs against the row-locked state. */
    @org.junit.jupiter.api.Test
    void aWriteConditionalOnAnIndexAnotherInstanceMovedIsRefused() {
        ConfigStore first = open();
        ConfigStore second = open();
        long read = first.createSource(source("shared")).modifyIndex();

        first.putSource(source("shared", false, "basic"), WriteCondition.modifyIndex(read));

        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> second.putSource(source("shared", true, "basic"), WriteCondition.modifyIndex(read)))
                .isInstanceOfSatisfying(StaleIndexException.class,
                        e -> org.assertj.core.api.Assertions.assertThat(e.current()).isEqualTo(read + 1));
        org.assertj.core.api.Assertions.assertThat(open().snapshot().sources().get("shared").enabled()).isFalse();
    }

    @Override
    protected ConfigStore open() {
        PostgresConfigStore store = PostgresConfigStore.open(url, Duration.ofMillis(500));
        opened.add(store);
        return store;
    }
}
