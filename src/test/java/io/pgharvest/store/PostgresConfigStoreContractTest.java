package io.pgharvest.store;

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

    @Override
    ConfigStore open() {
        PostgresConfigStore store = PostgresConfigStore.open(new StoreProperties(url, Duration.ofMillis(500)));
        opened.add(store);
        return store;
    }
}
