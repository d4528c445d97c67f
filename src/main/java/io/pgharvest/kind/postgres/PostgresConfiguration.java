package io.pgharvest.kind.postgres;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.support.wire.OwnSessions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The PostgreSQL kind's shared parts: one session opener for the engine, discovery and the connection test. */
@Configuration(proxyBeanMethods = false)
class PostgresConfiguration {

    private static final String NOTICES_DROPPED = "pgharvest.postgres.notices.dropped";
    private static final String NOTICES_DROPPED_TEXT = "Notices PostgreSQL servers sent past pgharvest's allowance"
            + " per round trip, dropped unread";

    /** The one session opener: the engine and the admin API's connection test share its rules. */
    @Bean
    SessionOpener sessionOpener(SessionSettings settings, MeterRegistry meters) {
        var opener = new SessionOpener(settings);
        FunctionCounter.builder(NOTICES_DROPPED, opener, SessionOpener::droppedNotices)
                .description(NOTICES_DROPPED_TEXT)
                .tag("sessions", "monitored") // reaper sessions, plans, texts, discovery, connection tests
                .register(meters);
        // The store's, the sink's and the leases' sessions (support.SmallPools, the store watcher):
        // one process-wide count, since pgjdbc makes their socket factories by name (OwnSessions).
        FunctionCounter.builder(NOTICES_DROPPED, OwnSessions.class, c -> OwnSessions.droppedNotices())
                .description(NOTICES_DROPPED_TEXT)
                .tag("sessions", "own")
                .register(meters);
        return opener;
    }

    @Bean
    ConnectionTester connectionTester(SessionOpener sessions) {
        return new ConnectionTester(sessions);
    }
}
