package io.pgharvest.kind.postgres;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.kind.SessionSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The PostgreSQL kind's shared parts: one session opener for the engine, discovery and the connection test. */
@Configuration(proxyBeanMethods = false)
class PostgresConfiguration {

    /** The one session opener: the engine and the admin API's connection test share its rules. */
    @Bean
    SessionOpener sessionOpener(SessionSettings settings, MeterRegistry meters) {
        var opener = new SessionOpener(settings);
        FunctionCounter.builder("pgharvest.postgres.notices.dropped", opener, SessionOpener::droppedNotices)
                .description("Notices PostgreSQL servers sent past pgharvest's allowance per round trip, dropped"
                        + " unread (reaper sessions, plans, texts, discovery, connection tests)")
                .register(meters);
        return opener;
    }

    @Bean
    ConnectionTester connectionTester(SessionOpener sessions) {
        return new ConnectionTester(sessions);
    }
}
