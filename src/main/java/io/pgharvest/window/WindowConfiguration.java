package io.pgharvest.window;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The recent window and its feed, with meters for its memory and what it dropped. */
@Configuration(proxyBeanMethods = false)
class WindowConfiguration {

    @Bean
    RecentWindow recentWindow(WindowProperties properties, MeterRegistry meters) {
        var window = new RecentWindow(properties.limits(), properties.maxMemory().toBytes(), Clock.systemUTC());
        Gauge.builder("pgharvest.window.memory", window.budget(), MemoryBudget::reserved).baseUnit("bytes")
                .description("Memory the recent window's series hold (points and per-series cost)").register(meters);
        Gauge.builder("pgharvest.window.series", window, RecentWindow::seriesCount)
                .description("Series in the recent window").register(meters);
        FunctionCounter.builder("pgharvest.window.series.refused", window, RecentWindow::refusedSeries)
                .description("New series refused: a source's series cap or the memory bound reached").register(meters);
        return window;
    }

    @Bean
    @ConditionalOnProperty(name = "pgharvest.window.enabled", havingValue = "true", matchIfMissing = true)
    WindowFeed windowFeed(RecentWindow window, WindowProperties properties, MeterRegistry meters) {
        var feed = new WindowFeed(window, properties.queuedBatches());
        FunctionCounter.builder("pgharvest.window.batches.dropped", feed, WindowFeed::droppedBatches)
                .description("Published batches the recent window dropped because its queue was full").register(meters);
        return feed;
    }
}
