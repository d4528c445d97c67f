package io.pgharvest.kind.pooler;

import io.pgharvest.kind.SessionSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Registers the pooler consoles: one {@link ConsoleEndpoint} per kind, each with its {@link ConsoleDialect}. */
@Configuration(proxyBeanMethods = false)
class PoolerConfiguration {

    @Bean
    ConsoleOpener consoleOpener(SessionSettings settings) {
        return new ConsoleOpener(settings);
    }

    /** pgbouncer's admin console. */
    @Bean
    ConsoleEndpoint pgbouncerEndpoint(ConsoleOpener sessions) {
        return new ConsoleEndpoint(ConsoleDialect.PGBOUNCER, sessions);
    }

    /** pgpool-II, whose SHOW commands read like pgbouncer's console. */
    @Bean
    ConsoleEndpoint pgpoolEndpoint(ConsoleOpener sessions) {
        return new ConsoleEndpoint(ConsoleDialect.PGPOOL, sessions);
    }
}
