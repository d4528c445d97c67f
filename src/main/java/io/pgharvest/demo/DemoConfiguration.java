package io.pgharvest.demo;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.store.ConfigStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;

/**
 * The {@code demo} profile: {@code ./mvnw spring-boot:run -Dspring-boot.run.profiles=demo} starts
 * pgharvest with an embedded PostgreSQL to watch (see README).
 */
@Configuration(proxyBeanMethods = false)
@Profile("demo")
class DemoConfiguration {

    @Bean
    DemoDatabase demoDatabase(ConfigStore store, DataDirectory dataDirectory, Environment environment) {
        return new DemoDatabase(store, dataDirectory.path(),
                environment.getRequiredProperty(DemoHistory.PORT_PROPERTY, Integer.class));
    }
}
