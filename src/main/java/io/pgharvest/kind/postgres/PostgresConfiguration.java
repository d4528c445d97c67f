package io.pgharvest.kind.postgres;

import io.pgharvest.kind.SessionSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The PostgreSQL kind's shared parts: one session opener for the engine, discovery and the connection test. */
@Configuration(proxyBeanMethods = false)
class PostgresConfiguration {

    /** The one session opener: the engine and the admin API's connection test share its rules. */
    @Bean
    SessionOpener sessionOpener(SessionSettings settings) {
        return new SessionOpener(settings);
    }

    @Bean
    ConnectionTester connectionTester(SessionOpener sessions) {
        return new ConnectionTester(sessions);
    }
}
