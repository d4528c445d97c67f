package io.pgharvest.kind.pooler;

import io.pgharvest.kind.SessionSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Registers the pooler consoles: one {@link AdminConsoleEndpoint} per kind, each with its {@link AdminConsoleDialect}. */
@Configuration(proxyBeanMethods = false)
class PoolerConfiguration {

    @Bean
    AdminConsoleOpener consoleOpener(SessionSettings settings) {
        return new AdminConsoleOpener(settings);
    }

    /** pgbouncer's admin console. */
    @Bean
    AdminConsoleEndpoint pgbouncerEndpoint(AdminConsoleOpener sessions) {
        return new AdminConsoleEndpoint(AdminConsoleDialect.PGBOUNCER, sessions);
    }

    /** pgpool-II, whose SHOW commands read like pgbouncer's console. */
    @Bean
    AdminConsoleEndpoint pgpoolEndpoint(AdminConsoleOpener sessions) {
        return new AdminConsoleEndpoint(AdminConsoleDialect.PGPOOL, sessions);
    }
}
