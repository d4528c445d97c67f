package io.pgharvest.lease;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceOwner;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.reaper.ownership.SourceOwnership;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.Backoff;
import io.pgharvest.support.ChangeNotifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.function.Function;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * This instance's side of the lease protocol, and the {@link SourceOwnership} its reaper service
 * follows. Every renew interval, or at once when another instance hands a source back (NOTIFY
 * {@value LeaseTable#CHANNEL}), it heartbeats, renews its leases, and claims or hands back
 * sources as {@link Assignment} decides.
 *
 * <p>Fencing: a source is {@linkplain #acquire acquired} by a reaper only while this instance
 * holds its lease, and handed back in the database only after the reaper has stopped
 * ({@link #released}); another instance starts a reaper only after its claim committed. A lease
 * that expired (its owner died) is taken only by an instance that has itself been renewing
 * without interruption for a whole lease duration: after an outage of the configuration database,
 * when every lease has expired at once, each owner renews its own (renewing does not require an
 * unexpired lease) before anybody may take them. So during an outage instances keep collecting
 * what they hold, and when it ends nobody takes a source from a living owner.
 *
 * <p>Parts: {@link HeldSources} keeps what this instance holds and runs (its lock is the only
 * one here, never held during database I/O), {@link HandBackSchedule} times each hand-back,
 * {@link FleetLeases} keeps the fleet-wide ownership for status, {@link LeaseTable} is the SQL.
 * Threads: one renew loop ("fleet-leases"), a short-lived thread per hand-back, reaper-service
 * threads calling the {@link SourceOwnership} methods, and Spring's lifecycle thread.
 */
public final class LeaseCoordinator implements SourceOwnership, SmartLifecycle {

    /** Starts after the reaper service (which then has nothing to run yet) and stops before it, handing everything over. */
    public static final int PHASE = Integer.MAX_VALUE - 50;
    private static final Logger log = LoggerFactory.getLogger(LeaseCoordinator.class);

    private final String self;
    private final FleetProperties properties;
    private final ConfigStore store;
    private final DataSource dataSource;
    private final LeaseTable table;
    private final Function<String, Optional<SourceRuntimeStatus>> statuses;
    private final FleetLeases leases;
    private final HeldSources sources = new HeldSources();
    private final HandBackSchedule handBack;
    private final ChangeNotifier changes = new ChangeNotifier(0);
    private final Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(3));
    private volatile boolean active;
    private volatile Thread loop;
    /**
     * System.nanoTime() of the first renew of the current unbroken run of renews; 0: not connected.
     * Written by the renew loop (and by {@link #start} before the loop exists).
     */
    private long connectedSince;

    LeaseCoordinator(String self, FleetProperties properties, ConfigStore store, DataSource dataSource,
            Function<String, Optional<SourceRuntimeStatus>> statuses, Runnable fleetStatusChanged) {
        this.self = self;
        this.properties = properties;
        this.store = store;
        this.dataSource = dataSource;
        this.statuses = statuses;
        this.table = new LeaseTable(self, properties.leaseDuration());
        this.leases = new FleetLeases(self, fleetStatusChanged);
        this.handBack = new HandBackSchedule(statuses);
    }

    public String instanceId() {
        return self;
    }

    @Override
    public boolean acquire(String source) {
        return sources.acquire(source);
    }

    @Override
    public Instant previousTick(String source) {
        return sources.takePreviousTick(source);
    }

    @Override
    public boolean holds(String source) {
        return sources.holds(source);
    }

    @Override
    public void released(String source, Instant lastTick) {
        if (sources.released(source, lastTick)) {
            freeInDatabase(source);
        }
    }

    @Override
    public ChangeNotifier changes() {
        return changes;
    }

    @Override
    public Optional<SourceOwner> owner(String source) {
        return leases.owner(source);
    }

    /** The sources this instance holds now (for status and tests). */
    public Set<String> held() {
        return sources.held();
    }

    @Override
    public void start() {
        active = true;
        try {
            renew();
        } catch (SQLException e) {
            log.warn("Fleet: first renew failed, retrying: {}", e.getMessage());
        }
        loop = Thread.ofVirtual().name("fleet-leases").start(this::run);
        log.info("Fleet: instance {} joined (lease {}, renew every {}{})", self, properties.leaseDuration(),
                properties.renewInterval(), properties.groups().isEmpty() ? "" : ", groups " + properties.groups());
    }

    /**
     * Hands every source over: stops claiming, lets the reaper service stop each reaper, frees each
     * lease as its reaper stops (so the others can start it at once), then leaves the fleet.
     */
    @Override
    public void stop() {
        if (!active) {
            return;
        }
        sources.leave();
        try (Connection c = dataSource.getConnection()) {
            table.heartbeat(c, properties.groups(), true);
        } catch (SQLException e) {
            log.warn("Fleet: cannot mark instance {} as leaving: {}", self, e.getMessage());
        }
        handBack.run(held(), this::giveUp);
        awaitReapersStopped(Duration.ofSeconds(30));
        halt();
        try (Connection c = dataSource.getConnection()) {
            table.leave(c);
        } catch (SQLException e) {
            log.warn("Fleet: cannot remove instance {}; its row expires by itself: {}", self, e.getMessage());
        }
        log.info("Fleet: instance {} left", self);
    }

    /** Stops holding {@code given}: their reapers stop, and each lease is freed once its reaper has. */
    private void giveUp(Collection<String> given) {
        Set<String> freeNow = sources.giveUp(given);
        changes.advanceTo(changes.index() + 1);
        freeNow.forEach(this::freeInDatabase);
    }

    /** Stops renewing without handing anything back, as a crashed instance would (for tests). */
    void halt() {
        active = false;
        Thread t = loop;
        if (t != null) {
            t.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return active;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private void awaitReapersStopped(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (sources.running().isEmpty()) {
                return;
            }
            try {
                changes.awaitAbove(Long.MAX_VALUE, Duration.ofMillis(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.warn("Fleet: reapers of {} still running at shutdown; their leases expire by themselves",
                sources.running());
    }

    /**
     * The renew loop: one round every renew interval, or at once when another instance hands a
     * source back (NOTIFY on a connection of its own); while the database is unreachable it backs
     * off and keeps what it holds.
     */
    private void run() {
        int failures = 0;
        while (active && !sources.leaving()) {
            try (Connection listener = dataSource.getConnection()) {
                listener.setAutoCommit(true);
                try (var s = listener.createStatement()) {
                    s.execute("LISTEN " + LeaseTable.CHANNEL);
                }
                PGConnection pg = listener.unwrap(PGConnection.class);
                while (active && !sources.leaving()) {
                    renew();
                    failures = 0;
                    pg.getNotifications((int) properties.renewInterval().toMillis());
                }
            } catch (SQLException | RuntimeException e) {
                connectedSince = 0;
                if (!active || sources.leaving()) {
                    return;
                }
                if (failures++ == 0) {
                    log.warn("Fleet: cannot renew leases ({}); collecting the {} sources held until the"
                            + " configuration database is back", e.getMessage(), held().size());
                }
                try {
                    Thread.sleep(backoff.after(failures));
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** One round: heartbeat, renew, then claim and hand back as the assignment says. */
    void renew() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            long now = System.nanoTime();
            table.heartbeat(c, properties.groups(), sources.leaving());
            Set<String> stillHeld = table.renew(c, measurements());
            if (connectedSince == 0) {
                connectedSince = now;
            }
            boolean settled = now - connectedSince >= properties.leaseDuration().toNanos();
            keepOnly(stillHeld);
            if (sources.leaving()) {
                return;
            }
            ConfigSnapshot snapshot = store.snapshot();
            var wanted = new HashMap<String, String>();
            for (Source source : snapshot.sources().values()) {
                if (source.enabled()) {
                    wanted.put(source.name(), source.group());
                }
            }
            var view = new FleetView(self, withSelf(table.instances(c)), table.leases(c), wanted);
            leases.publish(view.leases());
            Assignment.Plan plan = Assignment.plan(view, settled, properties.maxMovesPerRenew());
            var claimed = new HashSet<String>();
            var previousTicks = new HashMap<String, Instant>();
            for (String source : plan.claim()) {
                Optional<LeaseTable.Claim> claim = table.claim(c, source, settled);
                if (claim.isPresent()) {
                    claimed.add(source);
                    if (claim.get().previousTick() != null) {
                        previousTicks.put(source, claim.get().previousTick());
                    }
                }
            }
            var handingBack = new HashSet<String>();
            if (!sources.handBackPending()) {
                handingBack.addAll(plan.release());
            }
            // Leases of sources that are gone or disabled are handed back too.
            stillHeld.stream().filter(source -> !wanted.containsKey(source)).forEach(handingBack::add);
            change(claimed, previousTicks, handingBack);
            if (settled) {
                table.forget(c, snapshot.sources().keySet());
            }
        }
    }

    private Map<String, Set<String>> withSelf(Map<String, Set<String>> instances) {
        var all = new HashMap<>(instances);
        all.putIfAbsent(self, Set.copyOf(properties.groups()));
        return all;
    }

    private Map<String, LeaseTable.Measured> measurements() {
        var measured = new HashMap<String, LeaseTable.Measured>();
        for (String source : held()) {
            statuses.apply(source).ifPresent(status -> measured.put(source, new LeaseTable.Measured(
                    status.lastTickDuration() == null ? 0 : status.lastTickDuration().toNanos() / 1e6,
                    status.lastTickStart(), status.state() == null ? null : status.state().label(),
                    status.lastConnectionError())));
        }
        return measured;
    }

    /** Follows the leases the database gives this instance (see {@link HeldSources#settle}). */
    private void keepOnly(Set<String> stillHeld) {
        HeldSources.Settled settled = sources.settle(stillHeld);
        if (!settled.gone().isEmpty()) {
            log.warn("Fleet: sources taken over by other instances: {}", settled.gone());
        }
        if (settled.changed()) {
            changes.advanceTo(changes.index() + 1);
        }
        settled.freeAgain().forEach(this::freeInDatabase);
    }

    private void change(Set<String> claimed, Map<String, Instant> previousTicks, Set<String> handingBack) {
        if (!claimed.isEmpty()) {
            sources.claimed(claimed, previousTicks);
            log.info("Fleet: instance {} took {} sources", self, claimed.size());
            changes.advanceTo(changes.index() + 1);
        }
        if (!handingBack.isEmpty()) {
            log.info("Fleet: instance {} hands back {} sources", self, handingBack.size());
            sources.handingBack(handingBack);
            Thread.ofVirtual().name("fleet-hand-back").start(() -> handBack.run(handingBack, this::giveUp));
        }
    }

    /** Frees the lease, with the last tick its reaper here ran when one did (whichever path frees it). */
    private void freeInDatabase(String source) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            table.free(c, source, sources.lastTick(source));
            sources.freed(source);
        } catch (SQLException e) {
            log.warn("Fleet: cannot hand source {} back now; its lease expires by itself: {}", source, e.getMessage());
        }
    }
}
