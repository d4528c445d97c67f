package io.pgharvest.reaper;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.Backoff;
import io.pgharvest.support.ChangeNotifier;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Keeps exactly one {@link SourceReaper} per enabled source, in step with the configuration
 * store: one virtual thread watches the store index and, on every change, starts reapers for
 * new sources, hands changed configuration to running ones (which keep their schedules), and
 * stops the reapers of removed or disabled sources. Untouched sources are not disturbed.
 *
 * <p>No platform thread, executor or timer exists per source: reapers and the watcher are
 * virtual threads, and sessions are plain connections without pools.
 */
public class ReaperService implements SmartLifecycle {

    /** Starts after the sinks (so nothing is produced before they accept) and stops before them. */
    public static final int PHASE = Integer.MAX_VALUE - 100;
    private static final Logger log = LoggerFactory.getLogger(ReaperService.class);
    private static final Duration WATCH_TIMEOUT = Duration.ofMinutes(1);

    private final ConfigStore store;
    private final ReaperContext context;
    private final ReaperProperties properties;
    private final TickTimer timer;
    private final ReentrantLock reconcileLock = new ReentrantLock();
    private final Map<String, SourceReaper> reapers = new ConcurrentHashMap<>();
    private final Map<String, ReaperConfig> configs = new HashMap<>();
    /** The last status of each source that woke blocking status queries. */
    private final Map<String, SourceRuntimeStatus> significantStatus = new ConcurrentHashMap<>();
    private final AtomicLong statusIndex = new AtomicLong(1);
    private final ChangeNotifier statusChanges = new ChangeNotifier(1);
    private volatile boolean running;
    private volatile Thread watcher;

    public ReaperService(ConfigStore store, MeasurementPublisher publisher, MeterRegistry registry,
            ReaperProperties properties, SessionOpener sessions, Clock clock) {
        this(store, publisher, registry, properties, sessions, TickTimer.system(clock));
    }

    ReaperService(ConfigStore store, MeasurementPublisher publisher, MeterRegistry registry,
            ReaperProperties properties, SessionOpener sessions, TickTimer timer) {
        this.store = store;
        this.properties = properties;
        this.timer = timer;
        this.context = new ReaperContext(publisher, new ReaperMeters(registry), new InstanceMetricCache(), sessions,
                properties.minTickPeriod(),
                new Backoff(properties.reconnectBackoffMin(), properties.reconnectBackoffMax()),
                properties.soloBackoffMax(), properties.factsRefreshInterval(),
                Thread.ofVirtual().name("reaper-", 0).factory(), this::statusChanged,
                properties.maxExtraRoundTrips(), properties.maxStretch());
        Gauge.builder("pgharvest.reapers.active", reapers, Map::size)
                .description("Running source reapers").register(registry);
    }

    @Override
    public void start() {
        reconcileLock.lock();
        try {
            if (running) {
                return;
            }
            running = true;
            ConfigSnapshot snapshot = store.snapshot();
            reconcile(snapshot);
            // Watch from the index just applied, so a change made in between is not missed.
            long applied = snapshot.index();
            watcher = Thread.ofVirtual().name("reaper-config-watcher").start(() -> watchStore(applied));
        } finally {
            reconcileLock.unlock();
        }
    }

    @Override
    public void stop() {
        reconcileLock.lock();
        List<SourceReaper> stopping;
        try {
            if (!running) {
                return;
            }
            running = false;
            Thread w = watcher;
            if (w != null) {
                w.interrupt();
            }
            stopping = List.copyOf(reapers.values());
            stopping.forEach(SourceReaper::stop);
            reapers.clear();
            configs.clear();
        } finally {
            reconcileLock.unlock();
        }
        awaitAll(stopping, properties.shutdownTimeout());
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The runtime status of a source's reaper, if one runs for it. */
    public Optional<SourceRuntimeStatus> status(String source) {
        SourceReaper reaper = reapers.get(source);
        return reaper == null ? Optional.empty() : Optional.of(reaper.status());
    }

    /** Advanced whenever some source's status changes in a way an operator cares about. */
    public ChangeNotifier statusChanges() {
        return statusChanges;
    }

    int reaperCount() {
        return reapers.size();
    }

    private void watchStore(long applied) {
        long seen = applied;
        while (running) {
            try {
                long index = store.changes().awaitAbove(seen, WATCH_TIMEOUT);
                if (index != seen && running) {
                    ConfigSnapshot snapshot = store.snapshot();
                    reconcile(snapshot);
                    seen = snapshot.index();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("Could not apply a configuration change; will retry on the next change", e);
            }
        }
    }

    /** Brings the set of reapers in line with {@code snapshot}; idempotent. */
    private void reconcile(ConfigSnapshot snapshot) {
        reconcileLock.lock();
        try {
            if (!running) {
                return;
            }
            var wanted = new HashMap<String, ReaperConfig>();
            for (Source source : snapshot.sources().values()) {
                if (source.enabled()) {
                    try {
                        wanted.put(source.name(), ReaperConfig.of(source, snapshot));
                    } catch (IllegalArgumentException e) {
                        log.error("Source {} is not collected: {}", source.name(), e.getMessage());
                    }
                }
            }
            for (var name : List.copyOf(reapers.keySet())) {
                if (!wanted.containsKey(name)) {
                    retire(name);
                }
            }
            wanted.forEach(this::startOrUpdate);
            bumpStatusIndex(); // configured state (enabled, selections) is part of every status
        } finally {
            reconcileLock.unlock();
        }
    }

    private void startOrUpdate(String name, ReaperConfig config) {
        SourceReaper existing = reapers.get(name);
        if (existing == null) {
            var reaper = new SourceReaper(config, context, timer);
            reapers.put(name, reaper);
            configs.put(name, config);
            reaper.start();
            log.info("Source {}: collection started", name);
        } else if (!config.equals(configs.get(name))) {
            configs.put(name, config);
            existing.reconfigure(config);
        }
    }

    private void retire(String name) {
        SourceReaper reaper = reapers.remove(name);
        configs.remove(name);
        significantStatus.remove(name);
        bumpStatusIndex();
        if (reaper != null) {
            reaper.stop();
            log.info("Source {}: collection stopped", name);
            // Waiting must not hold up the reconcile of the other sources.
            Thread.ofVirtual().name("reaper-retire-" + name)
                    .start(() -> awaitAll(List.of(reaper), properties.shutdownTimeout()));
        }
    }

    private void statusChanged(SourceRuntimeStatus status) {
        if (!reapers.containsKey(status.source())) {
            return;
        }
        SourceRuntimeStatus previous = significantStatus.get(status.source());
        if (previous == null || significantlyDifferent(previous, status)) {
            significantStatus.put(status.source(), status);
            bumpStatusIndex();
        }
    }

    /**
     * Whether blocking status queries should wake: state, connection error, server, period, or
     * a metric's lane or error presence changed (not tick timings). Runs on every tick of every
     * source, so it compares in place rather than building comparable copies.
     */
    static boolean significantlyDifferent(SourceRuntimeStatus a, SourceRuntimeStatus b) {
        if (!Objects.equals(a.state(), b.state()) || !Objects.equals(a.lastConnectionError(), b.lastConnectionError())
                || !Objects.equals(a.serverVersionNum(), b.serverVersionNum())
                || !Objects.equals(a.inRecovery(), b.inRecovery()) || !Objects.equals(a.tickPeriod(), b.tickPeriod())
                || !Objects.equals(a.privilegeWarning(), b.privilegeWarning())
                || a.metrics().size() != b.metrics().size()) {
            return true;
        }
        for (int i = 0; i < a.metrics().size(); i++) {
            MetricRuntimeStatus x = a.metrics().get(i);
            MetricRuntimeStatus y = b.metrics().get(i);
            if (!x.name().equals(y.name()) || x.lane() != y.lane()
                    || (x.lastError() == null) != (y.lastError() == null)) {
                return true;
            }
        }
        return false;
    }

    private void bumpStatusIndex() {
        statusChanges.advanceTo(statusIndex.incrementAndGet());
    }

    /** Monotonic: a wall-clock step during shutdown must not shorten or stretch the wait. */
    private static void awaitAll(List<SourceReaper> stopping, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (SourceReaper reaper : stopping) {
            try {
                Duration left = Duration.ofNanos(deadline - System.nanoTime());
                if (!reaper.awaitStop(left.isNegative() ? Duration.ZERO : left)) {
                    log.warn("Source {}: reaper did not stop in time", reaper.name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
