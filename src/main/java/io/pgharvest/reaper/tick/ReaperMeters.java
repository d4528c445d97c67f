package io.pgharvest.reaper.tick;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The engine's Micrometer meters. Per-source meters carry only the source name (and an outcome),
 * never source x metric, so a fleet of 1,000 sources with 60 metrics stays at a few thousand
 * series. They are removed with their reaper.
 */
public final class ReaperMeters {

    static final String OK = "ok";
    static final String ERROR = "error";
    static final String TIMEOUT = "timeout";
    static final String CACHED = "cached";
    static final String BACKOFF = "backoff";
    /** A suspect or solo metric not run on a tick because the tick's extra round trips were used up. */
    static final String DEFERRED = "deferred";

    private final MeterRegistry registry;
    private final Timer tickLag;
    private final Timer batchDuration;
    private final DistributionSummary batchSize;
    private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    private final Map<String, SourceMeters> bySource = new java.util.HashMap<>();

    public ReaperMeters(MeterRegistry registry) {
        this.registry = registry;
        this.tickLag = Timer.builder("pgharvest.tick.lag")
                .description("Delay between a tick's grid point and its actual start")
                .publishPercentiles(0.5, 0.99).publishPercentileHistogram()
                .register(registry);
        this.batchDuration = Timer.builder("pgharvest.batch.duration")
                .description("Duration of one pipelined round trip carrying a tick's metrics")
                .register(registry);
        this.batchSize = DistributionSummary.builder("pgharvest.batch.size")
                .description("Metrics sent in one pipelined round trip").register(registry);
    }

    /** A reaper's loop failed unexpectedly and is restarted. */
    public void reaperRestarted() {
        registry.counter("pgharvest.reaper.restarts").increment();
    }

    MeterRegistry registry() {
        return registry;
    }

    void batch(int metrics, Duration duration) {
        batchSize.record(metrics);
        batchDuration.record(duration);
    }

    public void lag(Duration lag) {
        tickLag.record(lag.isNegative() ? Duration.ZERO : lag);
    }

    /**
     * The counters of {@code source}, shared by every reaper of that name alive at once: a
     * source disabled and re-enabled quickly has a new reaper while the old one still stops,
     * and the old one must not remove the meters the new one uses. Give them back with
     * {@link #release}.
     */
    public SourceMeters forSource(String source) {
        lock.lock();
        try {
            SourceMeters meters = bySource.computeIfAbsent(source, SourceMeters::new);
            meters.users++;
            return meters;
        } finally {
            lock.unlock();
        }
    }

    /** Removes the source's meters from the registry when its last reaper gives them back. */
    public void release(SourceMeters meters) {
        lock.lock();
        try {
            if (--meters.users == 0) {
                bySource.remove(meters.source, meters);
                meters.removeAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Counters of one source. */
    public final class SourceMeters {
        private final String source;
        private int users;
        private final List<Meter> meters = new CopyOnWriteArrayList<>();
        private final Counter ticks;
        private final Counter skipped;
        private final Counter roundTrips;
        private final Map<String, Counter> fetches = new ConcurrentHashMap<>();
        private final Map<String, Counter> stretched = new ConcurrentHashMap<>();

        private SourceMeters(String source) {
            this.source = source;
            this.ticks = track(Counter.builder("pgharvest.ticks").tag("source", source)
                    .description("Ticks run").register(registry));
            this.skipped = track(Counter.builder("pgharvest.ticks.skipped").tag("source", source)
                    .description("Grid points skipped because a tick overran").register(registry));
            this.roundTrips = track(Counter.builder("pgharvest.round.trips").tag("source", source)
                    .description("Round trips to the source (pipelines and solo runs)").register(registry));
        }

        public void tick(int skippedPoints) {
            ticks.increment();
            if (skippedPoints > 0) {
                skipped.increment(skippedPoints);
            }
        }

        /** A tick not run because the source's schedule is stretched; {@code reason}: timeout or overrun. */
        public void stretched(String reason) {
            stretched.computeIfAbsent(reason, r -> track(Counter.builder("pgharvest.ticks.stretched")
                    .tag("source", source).tag("reason", r)
                    .description("Ticks not run because the server was slow (schedule stretched)")
                    .register(registry))).increment();
        }

        void roundTrip() {
            roundTrips.increment();
        }

        void fetch(String outcome, int count) {
            if (count > 0) {
                // get first: computeIfAbsent's capturing lambda is a new object on every call,
                // and this runs several times per tick of every source.
                Counter counter = fetches.get(outcome);
                if (counter == null) {
                    counter = fetches.computeIfAbsent(outcome, o -> track(Counter.builder("pgharvest.metric.fetches")
                            .tag("source", source).tag("outcome", o)
                            .description("Metric executions by outcome").register(registry)));
                }
                counter.increment(count);
            }
        }

        /**
         * The source's collected metrics that delivered nothing for several intervals
         * ({@link io.pgharvest.model.SourceRuntimeStatus#undeliveredMetrics}), read from {@code count}.
         */
        public void undelivered(IntSupplier count) {
            track(Gauge.builder("pgharvest.metrics.undelivered", count, c -> c.getAsInt()).tag("source", source)
                    .description("Collected metrics of the source that delivered nothing for "
                            + io.pgharvest.model.SourceRuntimeStatus.UNDELIVERED_AFTER_INTERVALS + " intervals")
                    .register(registry));
        }

        private <M extends Meter> M track(M meter) {
            meters.add(meter);
            return meter;
        }

        private void removeAll() {
            meters.forEach(registry::remove);
        }
    }
}
