package io.pgharvest.store;

import io.pgharvest.config.DataDirectory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Chooses the configuration store: the configuration database when {@code pgharvest.store.url} is set, else files. */
@Configuration(proxyBeanMethods = false)
class StoreConfiguration {

    @Bean
    ConfigStore configStore(StoreProperties properties, DataDirectory dataDirectory) {
        return properties.url() == null ? new FileConfigStore(dataDirectory) : PostgresConfigStore.open(properties);
    }
}
