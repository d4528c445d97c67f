package io.pgharvest.store.postgres;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.StoreUnavailableException;
import io.pgharvest.support.Backoff;
import io.pgharvest.support.wire.OwnSessions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings changes other instances commit into this instance's store: one virtual thread on one
 * connection that LISTENs on {@value PostgresStorePersistence#CHANNEL} and, after each
 * notification or at the latest every poll interval (the fallback for notifications lost while
 * reconnecting), compares the committed store index with the published one and, when it moved,
 * reads and publishes the whole store. Cost per instance: one small query per poll interval,
 * whatever the number of sources.
 *
 * <p>While the database is unreachable, the store keeps its last state and this thread retries
 * with capped back-off; it never gives up.
 */
final class PostgresStoreWatcher {

    private static final Logger log = LoggerFactory.getLogger(PostgresStoreWatcher.class);

    private final PostgresConfigStore store;
    private final PostgresStorePersistence persistence;
    private final ConnectionString url;
    private final Duration pollInterval;
    private final Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5));
    private volatile boolean running;
    private volatile Thread thread;

    PostgresStoreWatcher(PostgresConfigStore store, PostgresStorePersistence persistence, ConnectionString url,
            Duration pollInterval) {
        this.store = store;
        this.persistence = persistence;
        this.url = url;
        this.pollInterval = pollInterval;
    }

    void start() {
        running = true;
        thread = Thread.ofVirtual().name("config-store-watcher").start(this::run);
    }

    void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        int failures = 0;
        while (running) {
            try (Connection c = connect()) {
                if (failures > 0) {
                    log.info("Configuration database {} reachable again", url.masked());
                }
                failures = 0;
                watch(c);
            } catch (SQLException | StoreUnavailableException e) {
                if (!running) {
                    return;
                }
                if (failures++ == 0) {
                    log.warn("Configuration database {} unreachable; collecting with the last known configuration"
                            + " (index {}) until it is back: {}", url.masked(), store.indexSeen(), e.getMessage());
                }
                try {
                    Thread.sleep(backoff.after(failures));
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private Connection connect() throws SQLException {
        Properties properties = OwnSessions.bounded(url.jdbcProperties()); // notices bounded, as the store's pool
        properties.setProperty("currentSchema", PostgresConfigStore.SCHEMA);
        properties.setProperty("ApplicationName", "pgharvest config watcher");
        properties.setProperty("tcpKeepAlive", "true");
        properties.setProperty("socketTimeout", "30");
        Connection c = DriverManager.getConnection(url.jdbcUrl(), properties);
        try (Statement s = c.createStatement()) {
            s.execute("LISTEN " + PostgresStorePersistence.CHANNEL);
        }
        return c;
    }

    /** Catches up once right after (re)connecting, then after every notification or poll interval. */
    private void watch(Connection c) throws SQLException {
        PGConnection pg = c.unwrap(PGConnection.class);
        int pollMillis = (int) Math.max(1, pollInterval.toMillis());
        while (running) {
            if (PostgresStorePersistence.committedIndex(c) > store.indexSeen()) {
                store.publishRead(persistence.read());
            }
            pg.getNotifications(pollMillis);
        }
    }
}
