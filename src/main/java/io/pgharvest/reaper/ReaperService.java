package io.pgharvest.reaper;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.discovery.SourceExpansion;
import io.pgharvest.kind.EndpointRegistry;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceOwner;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.reaper.instance.InstanceRegistry;
import io.pgharvest.reaper.ownership.SharedLeases;
import io.pgharvest.reaper.ownership.SourceOwnership;
import io.pgharvest.reaper.schedule.IdleSessionWatch;
import io.pgharvest.reaper.schedule.EarlyStarts;
import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.tick.CollectionPlan;
import io.pgharvest.reaper.tick.ReaperMeters;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.Backoff;
import io.pgharvest.support.ChangeFollower;
import io.pgharvest.support.ChangeNotifier;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Keeps exactly one {@link SourceReaper} per source to collect, in step with the configuration
 * store and with discovery: one virtual thread watches the store index and, on every change (and
 * whenever a discovering source's set changes), starts reapers for new sources, hands changed
 * configuration to running ones (which keep their schedules), and stops the reapers of removed or
 * disabled sources. Untouched sources are not disturbed. The sources to collect are the enabled
 * configured sources as {@link SourceExpansion} expands them: a plain source is itself, a
 * discovering one (continuous discovery, a cluster) is what its discovery found last. A retired
 * reaper's last status stays readable for {@code pgharvest.discovery.retired-status-retention}.
 *
 * <p>No platform thread, executor or timer exists per source: reapers and the watcher are
 * virtual threads, and sessions are plain connections without pools.
 */
public class ReaperService implements SmartLifecycle {

    /** Starts after the sinks (so nothing is produced before they accept) and stops before them. */
    public static final int PHASE = Integer.MAX_VALUE - 100;
    private static final Logger log = LoggerFactory.getLogger(ReaperService.class);
    /** How long after a discovered role change the members of its set re-read their role every tick. */
    static final Duration ROLE_SETTLE_WINDOW = Duration.ofSeconds(30);
    /**
     * How often the idle sessions are looked at between ticks, so that a stopped server reads as
     * down within 5 s whatever the metrics' intervals. The look sends nothing (it counts the bytes
     * a server sent before closing) and is made by one thread for all sources
     * ({@link IdleSessionWatch}): no load on the servers, one wake-up per period for the fleet.
     */
    static final Duration IDLE_SESSION_CHECK = Duration.ofSeconds(2);

    private final ConfigStore store;
    private final SourceOwnership ownership;
    private final SharedLeases leases;
    private final ReaperContext context;
    private final ReaperProperties properties;
    private final TickTimer timer;
    private final SourceExpansion expansion;
    /** Last status of reapers retired recently, for the status of discovering sources. */
    private final RetiredStatuses retired;
    private final ReentrantLock reconcileLock = new ReentrantLock();
    private final Map<String, SourceReaper> reapers = new ConcurrentHashMap<>();
    private final EarlyStarts earlyStarts = new EarlyStarts();
    private final Map<String, CollectionPlan> configs = new HashMap<>();
    /** How each running reaper's source came about (its discovery role); owned under the reconcile lock. */
    private final Map<String, SourceExpansion.Collected> discoveredBy = new HashMap<>();
    /** The fleet lease each started reaper runs under, until that reaper has stopped and released it. */
    private final Map<SourceReaper, String> leaseByReaper = new ConcurrentHashMap<>();
    private final StatusChanges statusChanges = new StatusChanges();
    private volatile boolean running;
    private volatile Thread watcher;
    private volatile Thread ownershipWatcher;

    /**
     * What an engine is built from: {@link #of} takes the parts every engine needs; the others
     * start as an engine that collects every source as configured (no fleet, no discovery),
     * without native metrics, on the system clock, and each {@code with} method replaces one.
     *
     * @param ownership which sources this instance collects ({@code lease.LeaseCoordinator} in a fleet)
     * @param expansion what each discovering source stands for
     * @param timer the clock reapers tick by
     * @param natives the implementations of native metrics ({@code native:} in a definition)
     */
    public record Parts(ConfigStore store, MeasurementPublisher publisher, MeterRegistry meters,
            ReaperProperties properties, EndpointRegistry endpoints, SourceOwnership ownership,
            SourceExpansion expansion, TickTimer timer, NativeMetricRegistry natives) {

        public Parts {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(publisher, "publisher");
            Objects.requireNonNull(meters, "meters");
            Objects.requireNonNull(properties, "properties");
            Objects.requireNonNull(endpoints, "endpoints");
            Objects.requireNonNull(ownership, "ownership");
            Objects.requireNonNull(expansion, "expansion");
            Objects.requireNonNull(timer, "timer");
            Objects.requireNonNull(natives, "natives");
        }

        public static Parts of(ConfigStore store, MeasurementPublisher publisher, MeterRegistry meters,
                ReaperProperties properties, EndpointRegistry endpoints) {
            return new Parts(store, publisher, meters, properties, endpoints, SourceOwnership.ALL,
                    SourceExpansion.none(), TickTimer.system(Clock.systemUTC()), NativeMetricRegistry.none());
        }

        public Parts withOwnership(SourceOwnership other) {
            return new Parts(store, publisher, meters, properties, endpoints, other, expansion, timer, natives);
        }

        public Parts withExpansion(SourceExpansion other) {
            return new Parts(store, publisher, meters, properties, endpoints, ownership, other, timer, natives);
        }

        public Parts withClock(Clock clock) {
            return withTimer(TickTimer.system(clock));
        }

        public Parts withTimer(TickTimer other) {
            return new Parts(store, publisher, meters, properties, endpoints, ownership, expansion, other, natives);
        }

        public Parts withNatives(NativeMetricRegistry other) {
            return new Parts(store, publisher, meters, properties, endpoints, ownership, expansion, timer, other);
        }
    }

    public ReaperService(Parts parts) {
        ConfigStore store = parts.store();
        SourceOwnership ownership = parts.ownership();
        ReaperProperties properties = parts.properties();
        TickTimer timer = parts.timer();
        SourceExpansion expansion = parts.expansion();
        MeasurementPublisher publisher = parts.publisher();
        MeterRegistry registry = parts.meters();
        EndpointRegistry endpoints = parts.endpoints();
        NativeMetricRegistry natives = parts.natives();
        this.store = store;
        this.ownership = ownership;
        this.leases = new SharedLeases(ownership);
        this.properties = properties;
        this.timer = timer;
        this.expansion = expansion;
        this.retired = new RetiredStatuses(expansion.properties().retiredStatusRetention(), timer::now);
        this.context = new ReaperContext(publisher, new ReaperMeters(registry), new InstanceRegistry(), endpoints,
                properties.defaultStatementTimeout(),
                properties.minTickPeriod(),
                new Backoff(properties.reconnectBackoffMin(), properties.reconnectBackoffMax()),
                properties.soloBackoffMax(), properties.factsRefreshInterval(),
                Thread.ofVirtual().name("reaper-", 0).factory(), this::statusChanged,
                properties.maxExtraRoundTrips(), properties.maxStretch(), natives,
                new IdleSessionWatch(IDLE_SESSION_CHECK, timer));
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
            expansion.start(this::discoveryChanged);
            ConfigSnapshot snapshot = store.snapshot();
            reconcile(snapshot);
            // Watch from the index just applied, so a change made in between is not missed.
            long applied = snapshot.index();
            watcher = ChangeFollower.start("reaper-config-watcher", store.changes(), applied, index -> {
                ConfigSnapshot changed = store.snapshot();
                reconcile(changed);
                return changed.index();
            }, "Could not apply a configuration change");
            // Sources move between this instance and others in a fleet.
            ownershipWatcher = ChangeFollower.start("reaper-ownership-watcher", ownership.changes(),
                    ownership.changes().index(), index -> {
                        reconcile(store.snapshot());
                        return index;
                    }, "Could not apply a change of source ownership");
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
            expansion.stop();
            for (Thread w : new Thread[] {watcher, ownershipWatcher}) {
                if (w != null) {
                    w.interrupt();
                }
            }
            stopping = List.copyOf(reapers.values());
            stopping.forEach(SourceReaper::stop);
            reapers.clear();
            configs.clear();
            discoveredBy.clear();
            retired.clear();
        } finally {
            reconcileLock.unlock();
        }
        awaitAll(stopping, properties.shutdownTimeout()).forEach(this::released);
        context.idleSessions().stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * The runtime status of a source's reaper, if one runs for it, or the last status of one
     * retired less than the retention ago (state {@code stopped}).
     */
    public Optional<SourceRuntimeStatus> status(String source) {
        SourceReaper reaper = reapers.get(source);
        if (reaper != null) {
            return Optional.of(reaper.status());
        }
        return retired.status(source);
    }

    /**
     * What a discovering source found, each member with its reaper's state, then the members
     * retired within the retention; empty for a plain source.
     */
    public Optional<DiscoveryStatus> discovery(String configuredSource) {
        return expansion.status(configuredSource).map(found -> {
            var members = new ArrayList<DiscoveryStatus.Member>();
            for (DiscoveryStatus.Member member : found.members()) {
                SourceReaper reaper = reapers.get(member.name());
                SessionState state = reaper == null ? null : reaper.status().state();
                members.add(new DiscoveryStatus.Member(member.name(), member.role(), state, null));
            }
            members.addAll(retired.membersOf(configuredSource, reapers::containsKey));
            return found.withMembers(members);
        });
    }

    /** Which fleet instance collects {@code source} (empty without a fleet). */
    public Optional<SourceOwner> owner(String source) {
        return ownership.owner(source);
    }

    /** The fleet's view of some source's owner changed: blocking status queries answer. */
    public void fleetStatusChanged() {
        statusChanges.advance();
    }

    /** Advanced whenever some source's status changes in a way an operator cares about. */
    public ChangeNotifier statusChanges() {
        return statusChanges.notifier();
    }

    int reaperCount() {
        return reapers.size();
    }

    /** Brings the set of reapers in line with {@code snapshot}; idempotent. */
    private void reconcile(ConfigSnapshot snapshot) {
        reconcileLock.lock();
        try {
            if (!running) {
                return;
            }
            var wanted = new HashMap<String, CollectionPlan>();
            var rolesChangedIn = new HashSet<String>();
            var enabled = snapshot.sources().values().stream()
                    .filter(source -> source.enabled() && ownership.holds(source.name())).toList();
            for (SourceExpansion.Collected collected : expansion.expand(enabled)) {
                Source source = collected.source();
                if (wanted.containsKey(source.name())) {
                    log.error("Source {} is not collected twice: a discovered source has the name of another source",
                            source.name());
                    continue;
                }
                try {
                    wanted.put(source.name(), CollectionPlan.of(source, snapshot, collected.added()));
                    SourceExpansion.Collected before = discoveredBy.put(source.name(), collected);
                    if (before != null && !Objects.equals(before.role(), collected.role())) {
                        log.info("Source {}: discovery reports its role changed from {} to {}; the members of {}"
                                + " re-read their recovery state every tick for {} s", source.name(), before.role(),
                                collected.role(), collected.discoveredBy(), ROLE_SETTLE_WINDOW.toSeconds());
                        rolesChangedIn.add(collected.discoveredBy());
                    }
                } catch (IllegalArgumentException e) {
                    log.error("Source {} is not collected: {}", source.name(), e.getMessage());
                }
            }
            retired.forgetExpired();
            for (var name : List.copyOf(reapers.keySet())) {
                if (!wanted.containsKey(name)) {
                    retire(name);
                }
            }
            wanted.forEach(this::startOrUpdate);
            // A discovered role change (a Patroni switchover or failover) means promotions and
            // demotions the sessions may not notice (a promoted server keeps its connections): every
            // member of that set re-reads its recovery state on each tick while the roles settle.
            if (!rolesChangedIn.isEmpty()) {
                Instant until = timer.now().plus(ROLE_SETTLE_WINDOW);
                discoveredBy.forEach((name, collected) -> {
                    SourceReaper reaper = reapers.get(name);
                    if (reaper != null && rolesChangedIn.contains(collected.discoveredBy())) {
                        reaper.recheckServerFactsUntil(until);
                    }
                });
            }
            statusChanges.advance(); // configured state (enabled, selections) is part of every status
        } finally {
            reconcileLock.unlock();
        }
    }

    private void startOrUpdate(String name, CollectionPlan config) {
        SourceReaper existing = reapers.get(name);
        if (existing == null) {
            String lease = leaseOf(name);
            if (!leases.acquire(lease)) {
                return;
            }
            retired.forget(name);
            var reaper = new SourceReaper(config, context, timer);
            leaseByReaper.put(reaper, lease);
            Instant previousTick = leases.previousTick(lease);
            if (previousTick != null) {
                reaper.firstTick().resumeAfter(previousTick);
            } else {
                Runnable afterFirstTick = earlyStarts.tryStart(config.connection());
                if (afterFirstTick != null) {
                    reaper.firstTick().collectAtOnce(afterFirstTick);
                } else {
                    reaper.firstTick().logInAfter(earlyStarts.settled(config.connection()));
                }
            }
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
        statusChanges.forget(name);
        SourceExpansion.Collected was = discoveredBy.remove(name);
        statusChanges.advance();
        if (reaper != null && was != null && was.discoveredBy() != null) {
            // A configured source's status comes from the store once it is gone or disabled.
            retired.retire(reaper.status(), was.discoveredBy(), was.role());
        }
        if (reaper != null) {
            reaper.stop();
            log.info("Source {}: collection stopped", name);
            // Waiting must not hold up the reconcile of the other sources.
            // Only a reaper that has stopped is released: its source may then start elsewhere.
            Thread.ofVirtual().name("reaper-retire-" + name).start(
                    () -> awaitAll(List.of(reaper), properties.shutdownTimeout()).forEach(this::released));
        }
    }

    /** A discovering source's set changed: start and retire reapers now, not at the next store change. */
    private void discoveryChanged() {
        try {
            reconcile(store.snapshot());
        } catch (RuntimeException e) {
            log.error("Could not apply a discovery result; will retry on the next change", e);
        }
    }

    private void statusChanged(SourceRuntimeStatus status) {
        if (reapers.containsKey(status.source())) {
            statusChanges.published(status);
        }
    }

    /**
     * The lease a reaper for {@code name} runs under: a discovered source's is that of the
     * configured source that found it, since the fleet assigns configured sources.
     */
    private String leaseOf(String name) {
        SourceExpansion.Collected collected = discoveredBy.get(name);
        return collected == null || collected.discoveredBy() == null ? name : collected.discoveredBy();
    }

    private void released(SourceReaper reaper) {
        String lease = leaseByReaper.remove(reaper);
        if (lease != null) {
            leases.released(lease, reaper.status().lastTickStart());
        }
    }

    /**
     * Waits for the reapers to stop; returns those that did. Monotonic: a
     * wall-clock step during shutdown must not shorten or stretch the wait.
     */
    private static List<SourceReaper> awaitAll(List<SourceReaper> stopping, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        var stopped = new java.util.ArrayList<SourceReaper>();
        for (SourceReaper reaper : stopping) {
            try {
                Duration left = Duration.ofNanos(deadline - System.nanoTime());
                if (reaper.awaitStop(left.isNegative() ? Duration.ZERO : left)) {
                    stopped.add(reaper);
                } else {
                    log.warn("Source {}: reaper did not stop in time", reaper.name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return stopped;
    }
}
