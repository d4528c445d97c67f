package io.pgharvest.store.choice;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.file.FileConfigStore;
import io.pgharvest.store.file.FileLogPositions;
import io.pgharvest.store.postgres.PostgresConfigStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Chooses the configuration store: the configuration database when {@code pgharvest.store.url} is set, else files. */
@Configuration(proxyBeanMethods = false)
class StoreConfiguration {

    @Bean
    ConfigStore configStore(StoreProperties properties, DataDirectory dataDirectory) {
        return properties.url() == null ? new FileConfigStore(dataDirectory) : PostgresConfigStore.open(properties.url(), properties.pollInterval());
    }

    /** Log read positions live where the configuration does. */
    @Bean
    LogPositions logPositions(ConfigStore configStore, DataDirectory dataDirectory) {
        return configStore instanceof PostgresConfigStore database ? database.logPositions()
                : new FileLogPositions(dataDirectory);
    }
}
