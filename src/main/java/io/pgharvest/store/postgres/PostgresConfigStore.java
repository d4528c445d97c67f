package io.pgharvest.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.StoreUnavailableException;
import io.pgharvest.store.state.StateConfigStore;
import io.pgharvest.store.state.StoreState;
import io.pgharvest.support.SmallPools;
import java.time.Duration;
import org.flywaydb.core.Flyway;

/**
 * The configuration store in a PostgreSQL database ({@code pgharvest.store.url}) that several
 * pgharvest instances share: same semantics as the file store (indexes, validation, built-ins),
 * one transaction per write, and changes made by any instance published here within the poll
 * interval ({@link PostgresStoreWatcher}).
 *
 * <p>While the database cannot be reached, readers keep the last state they saw (reapers keep
 * collecting) and writes fail with {@link StoreUnavailableException}, changing nothing.
 */
public final class PostgresConfigStore extends StateConfigStore implements AutoCloseable {

    static final String SCHEMA = "pgharvest_config";

    private final HikariDataSource dataSource;
    private final PostgresStoreWatcher watcher;
    private final LogPositions logPositions;

    private PostgresConfigStore(HikariDataSource dataSource, PostgresStorePersistence persistence,
            ConnectionString url, Duration pollInterval) {
        super(persistence);
        this.dataSource = dataSource;
        this.watcher = new PostgresStoreWatcher(this, persistence, url, pollInterval);
        this.logPositions = new PostgresLogPositions(dataSource, url.masked());
        watcher.start();
    }

    /**
     * Connects to {@code connectionUri} ({@code pgharvest.store.url}), creates or upgrades the schema and
     * loads the store; {@code pollInterval} is {@code pgharvest.store.poll-interval}.
     *
     * @throws IllegalArgumentException naming {@code pgharvest.store.url} when the URL is unusable
     * @throws StoreUnavailableException when the database cannot be reached or migrated
     */
    public static PostgresConfigStore open(String connectionUri, Duration pollInterval) {
        ConnectionString url = parse(connectionUri);
        var config = SmallPools.config("config-store", url.jdbcUrl(), url.jdbcProperties(), 2,
                "SET lock_timeout = '10s'; SET search_path = " + SCHEMA);
        var dataSource = new HikariDataSource(config);
        try {
            Flyway.configure(PostgresConfigStore.class.getClassLoader())
                    .dataSource(dataSource)
                    .schemas(SCHEMA)
                    .table("pgharvest_store_schema_history")
                    .locations("classpath:db/store-postgres")
                    .load()
                    .migrate();
            return new PostgresConfigStore(dataSource, new PostgresStorePersistence(dataSource, url.masked()), url,
                    pollInterval);
        } catch (RuntimeException e) {
            dataSource.close();
            if (e instanceof StoreUnavailableException) {
                throw e;
            }
            throw new StoreUnavailableException("pgharvest.store.url: the configuration database " + url.masked()
                    + " cannot be prepared: " + e.getMessage(), e);
        }
    }

    private static ConnectionString parse(String url) {
        try {
            ConnectionString parsed = ConnectionString.parse(url);
            if (parsed.format() != ConnectionString.Format.URI) {
                throw new IllegalArgumentException("pgharvest.store.url: must be a postgresql:// URI");
            }
            return parsed;
        } catch (InvalidConnectionStringException e) {
            throw new IllegalArgumentException("pgharvest.store.url: " + e.getMessage(), e);
        }
    }

    /** For {@link PostgresStoreWatcher}: publishes what another instance wrote. */
    void publishRead(StoreState newer) {
        publish(newer);
    }

    /** For {@link PostgresStoreWatcher}: the index readers see. */
    long indexSeen() {
        return publishedIndex();
    }

    /** The log read positions of log insights, in this database. */
    public LogPositions logPositions() {
        return logPositions;
    }

    @Override
    public void close() {
        watcher.stop();
        dataSource.close();
    }
}
