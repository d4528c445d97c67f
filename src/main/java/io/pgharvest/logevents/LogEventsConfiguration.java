package io.pgharvest.logevents;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The book of latest log events and its feed from the published measurements. */
@Configuration(proxyBeanMethods = false)
class LogEventsConfiguration {

    @Bean
    LogEventBook logEventBook() {
        return new LogEventBook();
    }

    @Bean
    LogEventsFeed logEventsFeed(LogEventBook book, MeterRegistry meters) {
        var feed = new LogEventsFeed(book);
        FunctionCounter.builder("pgharvest.log.events.batches.dropped", feed, LogEventsFeed::droppedBatches)
                .description("Batches with log events the console's book dropped because its queue was full")
                .register(meters);
        return feed;
    }
}
