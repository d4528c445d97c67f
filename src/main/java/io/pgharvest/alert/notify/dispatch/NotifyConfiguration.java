package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.KnownSilences;
import io.pgharvest.alert.notify.NotifyStore;

import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.notify.file.FileNotifyStore;
import io.pgharvest.alert.notify.postgres.PostgresNotifyStore;
import io.pgharvest.config.DataDirectory;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.choice.StoreProperties;
import io.pgharvest.support.SmallPools;
import io.pgharvest.support.plugin.PluginRegistry;
import java.time.Clock;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The notification side of alerts: the receiver kinds, the store of receivers, silences and the
 * outbox (beside the configuration store, in the same back-end), the dispatcher, and the
 * {@link AlertNotifications} evaluation hands its transitions to.
 */
@Configuration(proxyBeanMethods = false)
class NotifyConfiguration {

    @Bean(destroyMethod = "close")
    PluginRegistry<AlertReceiverPlugin<?>> alertReceiverRegistry() {
        @SuppressWarnings({"unchecked", "rawtypes"})
        PluginRegistry<AlertReceiverPlugin<?>> registry = (PluginRegistry) PluginRegistry.load(AlertReceiverPlugin.class);
        return registry;
    }

    /** {@code configStore} first: in the configuration database it created the tables. */
    @Bean(destroyMethod = "")
    NotifyStore notifyStore(StoreProperties storeProperties, DataDirectory dataDirectory, ConfigStore configStore,
            NotifyPool pool) {
        if (storeProperties.url() == null) {
            return new FileNotifyStore(dataDirectory.path());
        }
        return new PostgresNotifyStore(pool.dataSource(), ConnectionString.parse(storeProperties.url()).masked());
    }

    /** A pool of its own on the configuration database (a slow send never holds a store connection: none is held while sending). */
    @Bean(destroyMethod = "close")
    NotifyPool notifyPool(StoreProperties storeProperties) {
        if (storeProperties.url() == null) {
            return new NotifyPool(null);
        }
        ConnectionString url = ConnectionString.parse(storeProperties.url());
        var config = SmallPools.config("alert-notifications", url.jdbcUrl(), url.jdbcProperties(), 2,
                "SET search_path = pgharvest_config; SET lock_timeout = '5s'");
        return new NotifyPool(new HikariDataSource(config));
    }

    /** Which silences hold an alert, for the alerts API. */
    @Bean
    KnownSilences knownSilences(NotifyStore store) {
        return new KnownSilences(store::silences);
    }

    @Bean(destroyMethod = "close")
    ReceiverCatalog receiverCatalog(NotifyStore store, PluginRegistry<AlertReceiverPlugin<?>> registry,
            NotifyProperties properties) {
        return new ReceiverCatalog(store, new ReceiverBinder(registry), Clock.systemUTC(), properties.receiverRefresh());
    }

    @Bean
    OutboxDispatcher outboxDispatcher(NotifyStore store, ReceiverCatalog catalog, NotifyProperties properties) {
        return new OutboxDispatcher(store, catalog, Clock.systemUTC(), properties.tuning());
    }

    @Bean
    DispatcherLifecycle outboxDispatcherLifecycle(OutboxDispatcher dispatcher) {
        return new DispatcherLifecycle(dispatcher);
    }

    @Bean
    OutboxNotifications alertNotifications(NotifyStore store, ReceiverCatalog catalog, OutboxDispatcher dispatcher,
            NotifyProperties properties) {
        return new OutboxNotifications(store, catalog, dispatcher, Clock.systemUTC(), properties.resendInterval());
    }

    /** The configuration database's pool of the notification side; none with the file store. */
    record NotifyPool(HikariDataSource dataSource) {
        public void close() {
            if (dataSource != null) {
                dataSource.close();
            }
        }
    }

    /** Starts the dispatcher with the application and stops it, waiting briefly, on shut-down. */
    static final class DispatcherLifecycle implements SmartLifecycle {

        private final OutboxDispatcher dispatcher;
        private volatile boolean running;

        DispatcherLifecycle(OutboxDispatcher dispatcher) {
            this.dispatcher = dispatcher;
        }

        @Override
        public void start() {
            dispatcher.start();
            running = true;
        }

        @Override
        public void stop() {
            dispatcher.stop();
            try {
                dispatcher.awaitStop(Duration.ofSeconds(15));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }
}
