package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.ReceiverDefinition;
import io.pgharvest.alert.notify.ReceiverRoute;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.alert.notify.file.FileNotifyStore;
import io.pgharvest.alert.notify.postgres.PostgresNotifyStore;
import io.pgharvest.store.postgres.PostgresConfigStore;
import io.pgharvest.support.Backoff;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The notification side as the application wires it (store, receivers from the registry,
 * dispatcher, {@link OutboxNotifications}), with back-off and polling in milliseconds.
 */
public final class NotifyHarness implements AutoCloseable {

    public static final OutboxDispatcher.Tuning FAST = new OutboxDispatcher.Tuning(
            new Backoff(Duration.ofMillis(50), Duration.ofMillis(200)), Duration.ofHours(1), Duration.ofMillis(50),
            Duration.ofSeconds(5), Duration.ofDays(1));
    private static final AtomicInteger DATABASES = new AtomicInteger();

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final PluginRegistry<AlertReceiverPlugin<?>> REGISTRY = (PluginRegistry) PluginRegistry.load(AlertReceiverPlugin.class);

    public final NotifyStore store;
    public final ReceiverCatalog catalog;
    public final OutboxDispatcher dispatcher;
    public final OutboxNotifications notifications;

    public NotifyHarness(NotifyStore store) {
        this.store = store;
        this.catalog = new ReceiverCatalog(store, new ReceiverBinder(REGISTRY), Clock.systemUTC(), Duration.ofMillis(100));
        this.dispatcher = new OutboxDispatcher(store, catalog, Clock.systemUTC(), FAST);
        this.notifications = new OutboxNotifications(store, catalog, dispatcher, Clock.systemUTC(), Duration.ofMinutes(1));
    }

    public static NotifyHarness onFiles(Path dir) {
        return new NotifyHarness(new FileNotifyStore(dir));
    }

    /** A fresh configuration database on the shared test server, migrated as pgharvest migrates it. */
    public static PostgresDatabase freshDatabase() {
        String name = "notify_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        TestPostgres postgres = TestPostgres.shared();
        postgres.createDatabase(name);
        PostgresConfigStore.open(postgres.connStr(name), Duration.ofMillis(500)).close();
        var config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl(name));
        config.setMaximumPoolSize(4);
        config.setConnectionInitSql("SET search_path = pgharvest_config");
        return new PostgresDatabase(new HikariDataSource(config));
    }

    public record PostgresDatabase(HikariDataSource dataSource) implements AutoCloseable {
        public NotifyStore store() {
            return new PostgresNotifyStore(dataSource, "test database");
        }

        @Override
        public void close() {
            dataSource.close();
        }
    }

    public NotifyHarness start() {
        dispatcher.start();
        return this;
    }

    public void addReceiver(String name, String type, Map<String, Object> options, ReceiverRoute route) {
        var definition = new ReceiverDefinition(name, type, options, route);
        new ReceiverBinder(REGISTRY).bind(definition);
        store.createReceiver(definition);
        catalog.refresh();
    }

    @Override
    public void close() throws InterruptedException {
        dispatcher.stop();
        dispatcher.awaitStop(Duration.ofSeconds(10));
        catalog.close();
    }
}
