package io.pgharvest.lease;

import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.model.FleetInstance;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.choice.StoreProperties;
import io.pgharvest.support.SmallPools;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Several instances on one configuration database share the fleet through leases there. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "pgharvest.store", name = "url")
class FleetConfiguration {

    @Bean(destroyMethod = "close")
    LeaseDataSource leaseDataSource(StoreProperties store) {
        ConnectionString url = ConnectionString.parse(store.url());
        // Three: the listener, the renew round, and a hand-back from a stopping reaper.
        var config = SmallPools.config("fleet-leases", url.jdbcUrl(), url.jdbcProperties(), 3,
                "SET search_path = pgharvest_config; SET lock_timeout = '2s'");
        return new LeaseDataSource(new HikariDataSource(config));
    }

    /** Generated once per start unless configured: the same id in leases, logs and Prometheus labels. */
    @Bean
    FleetInstance fleetInstance(FleetProperties properties) {
        return new FleetInstance(properties.instanceId() != null ? properties.instanceId() : defaultInstanceId());
    }

    @Bean
    LeaseCoordinator leaseCoordinator(FleetInstance instance, FleetProperties properties, ConfigStore store,
            LeaseDataSource dataSource, ObjectProvider<ReaperService> reapers) {
        return new LeaseCoordinator(instance.id(), properties, store, dataSource.pool(),
                source -> Optional.ofNullable(reapers.getIfAvailable()).flatMap(r -> r.status(source)),
                () -> Optional.ofNullable(reapers.getIfAvailable()).ifPresent(ReaperService::fleetStatusChanged));
    }

    private static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "pgharvest";
        }
        byte[] suffix = new byte[3];
        ThreadLocalRandom.current().nextBytes(suffix);
        return host.replaceAll("[^A-Za-z0-9._:-]", "_") + "-" + HexFormat.of().formatHex(suffix);
    }

    /** The pool of the lease protocol, apart from the store's, so that a slow store write never delays a renew. */
    record LeaseDataSource(HikariDataSource pool) {
        public void close() {
            pool.close();
        }
    }
}
