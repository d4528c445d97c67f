package io.pgharvest.window;

import io.micrometer.core.instrument.FunctionCounter;
import io.pgharvest.config.DataDirectory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The recent window, its feed and its snapshot, with meters for its memory, what it dropped and the snapshot. */
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

    /**
     * The window's snapshot, restored here, before any lifecycle starts the feed; off (neither read
     * nor written) when snapshot-every is 0s or the window is disabled.
     */
    @Bean
    WindowSnapshots windowSnapshots(RecentWindow window, WindowProperties properties, DataDirectory dataDirectory,
            MeterRegistry meters) {
        var snapshots = new WindowSnapshots(window, dataDirectory.resolve(WindowSnapshotFile.FILE_NAME),
                properties.enabled() ? properties.snapshotEvery() : Duration.ZERO);
        snapshots.restore();
        Gauge.builder("pgharvest.window.snapshot.size", snapshots, WindowSnapshots::lastBytes).baseUnit("bytes")
                .description("Size of the recent window's last snapshot file").register(meters);
        Gauge.builder("pgharvest.window.snapshot.write.duration", snapshots, WindowSnapshots::lastWriteSeconds)
                .baseUnit("seconds").description("How long the last snapshot took to copy, encode and write")
                .register(meters);
        FunctionCounter.builder("pgharvest.window.snapshot.failures", snapshots, WindowSnapshots::failedWrites)
                .description("Snapshot writes that failed (the next one is tried a period later)").register(meters);
        return snapshots;
    }
}
