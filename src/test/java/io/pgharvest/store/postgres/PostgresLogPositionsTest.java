package io.pgharvest.store.postgres;

import io.pgharvest.store.LogPositions;
import io.pgharvest.store.LogPositionsContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The log read positions in the configuration database, each instance opened as a collector opens its store. */
class PostgresLogPositionsTest extends LogPositionsContract {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private final List<PostgresConfigStore> opened = new ArrayList<>();
    private String url;

    @BeforeEach
    void createDatabase() {
        url = PostgresStores.newDatabase("log_positions_" + DATABASES.incrementAndGet());
    }

    @AfterEach
    void closeStores() {
        opened.forEach(PostgresConfigStore::close);
    }

    @Override
    protected LogPositions open() {
        PostgresConfigStore store = PostgresConfigStore.open(url, Duration.ofMillis(500));
        opened.add(store);
        return store.logPositions();
    }
}
