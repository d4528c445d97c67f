package io.pgharvest.lease;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceOwner;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.reaper.SourceOwnership;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.Backoff;
import io.pgharvest.support.ChangeNotifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
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
 */
public final class LeaseCoordinator implements SourceOwnership, SmartLifecycle {

    /** Starts after the reaper service (which then has nothing to run yet) and stops before it, handing everything over. */
    public static final int PHASE = Integer.MAX_VALUE - 50;
    /** How long after a tick's due time its reaper is told to stop: the tick has begun by then. */
    private static final long HAND_BACK_DELAY_MILLIS = 100;
    /** Sources whose next tick is further off are handed back at once (a missed tick is then unlikely to matter). */
    private static final long MAX_HAND_BACK_WAIT_MILLIS = 10_000;
    private static final Logger log = LoggerFactory.getLogger(LeaseCoordinator.class);

    private final String self;
    private final FleetProperties properties;
    private final ConfigStore store;
    private final DataSource dataSource;
    private final LeaseTable table;
    private final Function<String, Optional<SourceRuntimeStatus>> statuses;
    private final Runnable fleetStatusChanged;
    /** Every lease as read at the last renew: the fleet-wide status any instance answers with. */
    private volatile Map<String, FleetView.Lease> leases = Map.of();
    private final ChangeNotifier changes = new ChangeNotifier(0);
    private final ReentrantLock lock = new ReentrantLock();
    /** Sources whose lease this instance holds and may collect. */
    private final Set<String> held = new HashSet<>();
    /** Sources with a reaper here that has not stopped yet. */
    private final Set<String> running = new HashSet<>();
    /** Of sources just claimed: the previous owner's last tick, until their reaper starts. */
    private final Map<String, Instant> previousTicks = new HashMap<>();
    /** Sources this instance gave up whose lease may still name it (until freed). */
    private final Set<String> handingBack = new HashSet<>();
    private final Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(3));
    private volatile boolean active;
    private volatile boolean leaving;
    private volatile Thread loop;
    /** System.nanoTime() of the first renew of the current unbroken run of renews; 0: not connected. */
    private long connectedSince;

    LeaseCoordinator(String self, FleetProperties properties, ConfigStore store, DataSource dataSource,
            Function<String, Optional<SourceRuntimeStatus>> statuses, Runnable fleetStatusChanged) {
        this.self = self;
        this.fleetStatusChanged = fleetStatusChanged;
        this.properties = properties;
        this.store = store;
        this.dataSource = dataSource;
        this.statuses = statuses;
        this.table = new LeaseTable(self, properties.leaseDuration());
    }

    public String instanceId() {
        return self;
    }

    @Override
    public boolean acquire(String source) {
        lock.lock();
        try {
            if (!held.contains(source) || leaving) {
                return false;
            }
            running.add(source);
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Instant previousTick(String source) {
        lock.lock();
        try {
            return previousTicks.remove(source);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean holds(String source) {
        lock.lock();
        try {
            return held.contains(source) && !leaving;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void released(String source, Instant lastTick) {
        boolean free;
        lock.lock();
        try {
            running.remove(source);
            free = !held.contains(source) || leaving;
        } finally {
            lock.unlock();
        }
        if (free) {
            freeInDatabase(source, lastTick);
        }
    }

    @Override
    public ChangeNotifier changes() {
        return changes;
    }

    @Override
    public Optional<SourceOwner> owner(String source) {
        return Optional.ofNullable(leases.get(source)).map(lease -> new SourceOwner(lease.owner(),
                self.equals(lease.owner()), lease.epoch(), lease.expiresAt(), lease.lastTickAt(),
                stateOf(lease.state()), lease.lastError()));
    }

    private static SessionState stateOf(String label) {
        for (SessionState state : SessionState.values()) {
            if (state.label().equals(label)) {
                return state;
            }
        }
        return null;
    }

    /** The sources this instance holds now (for status and tests). */
    public Set<String> held() {
        lock.lock();
        try {
            return Set.copyOf(held);
        } finally {
            lock.unlock();
        }
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
        leaving = true;
        try (Connection c = dataSource.getConnection()) {
            table.heartbeat(c, properties.groups(), true);
        } catch (SQLException e) {
            log.warn("Fleet: cannot mark instance {} as leaving: {}", self, e.getMessage());
        }
        handBackAfterNextTicks(held());
        awaitReapersStopped(Duration.ofSeconds(30));
        active = false;
        Thread t = loop;
        if (t != null) {
            t.interrupt();
        }
        try (Connection c = dataSource.getConnection()) {
            table.leave(c);
        } catch (SQLException e) {
            log.warn("Fleet: cannot remove instance {}; its row expires by itself: {}", self, e.getMessage());
        }
        log.info("Fleet: instance {} left", self);
    }

    /**
     * Gives up {@code sources} one by one, each just after its next tick has started: the reaper
     * here finishes that tick and stops, the lease is freed, and the next owner starts before the
     * following grid point (the grid is the same on every instance), so no tick is missed. A source
     * without a known schedule, or whose next tick is far off, is given up at once.
     */
    private void handBackAfterNextTicks(Set<String> sources) {
        var order = new java.util.TreeMap<Long, java.util.List<String>>();
        long now = System.currentTimeMillis();
        for (String source : sources) {
            long at = statuses.apply(source)
                    .filter(status -> status.lastTickStart() != null && status.tickPeriod() != null)
                    .map(status -> nextTickAfter(status.lastTickStart().toEpochMilli(),
                            status.tickPeriod().toMillis(), now) + HAND_BACK_DELAY_MILLIS)
                    .filter(due -> due - now <= MAX_HAND_BACK_WAIT_MILLIS)
                    .orElse(now);
            order.computeIfAbsent(at, k -> new java.util.ArrayList<>()).add(source);
        }
        for (var entry : order.entrySet()) {
            long wait = entry.getKey() - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            giveUp(entry.getValue());
        }
    }

    private static long nextTickAfter(long lastTick, long period, long now) {
        long next = lastTick + period;
        while (next < now) {
            next += period;
        }
        return next;
    }

    /** Stops holding {@code sources}: their reapers stop, and each lease is freed once its reaper has. */
    private void giveUp(java.util.Collection<String> sources) {
        var freeNow = new HashSet<String>();
        lock.lock();
        try {
            for (String source : sources) {
                if (held.remove(source)) {
                    handingBack.add(source);
                    if (!running.contains(source)) {
                        freeNow.add(source);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
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
            lock.lock();
            try {
                if (running.isEmpty()) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                changes.awaitAbove(Long.MAX_VALUE, Duration.ofMillis(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.warn("Fleet: reapers of {} still running at shutdown; their leases expire by themselves", running);
    }

    private void run() {
        int failures = 0;
        while (active && !leaving) {
            try (Connection listener = dataSource.getConnection()) {
                listener.setAutoCommit(true);
                try (var s = listener.createStatement()) {
                    s.execute("LISTEN " + LeaseTable.CHANNEL);
                }
                PGConnection pg = listener.unwrap(PGConnection.class);
                while (active && !leaving) {
                    renew();
                    failures = 0;
                    pg.getNotifications((int) properties.renewInterval().toMillis());
                }
            } catch (SQLException | RuntimeException e) {
                connectedSince = 0;
                if (!active || leaving) {
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
            table.heartbeat(c, properties.groups(), leaving);
            Set<String> stillHeld = table.renew(c, measurements());
            if (connectedSince == 0) {
                connectedSince = now;
            }
            boolean settled = now - connectedSince >= properties.leaseDuration().toNanos();
            keepOnly(stillHeld);
            if (leaving) {
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
            publish(view.leases());
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
            var handBack = new HashSet<String>();
            if (!handBackPending()) {
                handBack.addAll(plan.release());
            }
            // Leases of sources that are gone or disabled are handed back too.
            stillHeld.stream().filter(source -> !wanted.containsKey(source)).forEach(handBack::add);
            change(claimed, previousTicks, handBack);
            if (settled) {
                table.forget(c, snapshot.sources().keySet());
            }
        }
    }

    /**
     * Keeps the leases for {@link #owner} and wakes blocking status queries when an owner, or
     * what an owner reports as significant (state, error), changed; not on every tick.
     */
    private void publish(Map<String, FleetView.Lease> current) {
        Map<String, FleetView.Lease> previous = leases;
        leases = current;
        boolean changed = previous.size() != current.size();
        for (var lease : current.values()) {
            FleetView.Lease before = previous.get(lease.source());
            if (changed || before == null || before.epoch() != lease.epoch()
                    || !Objects.equals(before.owner(), lease.owner()) || !Objects.equals(before.state(), lease.state())
                    || !Objects.equals(before.lastError(), lease.lastError())) {
                changed = true;
                break;
            }
        }
        if (changed) {
            fleetStatusChanged.run();
        }
    }

    private boolean handBackPending() {
        lock.lock();
        try {
            return !handingBack.isEmpty();
        } finally {
            lock.unlock();
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

    /**
     * Drops sources another instance has taken (their reapers stop at once; nothing to free), and
     * settles leases the database gives this instance but it does not use: one whose hand-back
     * failed is freed again, one from a previous run under the same instance id is adopted.
     */
    private void keepOnly(Set<String> stillHeld) {
        var freeAgain = new HashSet<String>();
        boolean changed;
        lock.lock();
        try {
            var gone = new HashSet<>(held);
            gone.removeAll(stillHeld);
            if (!gone.isEmpty()) {
                log.warn("Fleet: sources taken over by other instances: {}", gone);
                held.removeAll(gone);
            }
            var adopted = new HashSet<String>();
            for (String source : stillHeld) {
                if (held.contains(source) || running.contains(source)) {
                    continue;
                }
                if (handingBack.contains(source) || leaving) {
                    freeAgain.add(source);
                } else {
                    adopted.add(source);
                }
            }
            held.addAll(adopted);
            previousTicks.keySet().retainAll(held);
            // Freed meanwhile (by this instance or by expiry): nothing left to hand back.
            handingBack.removeIf(source -> !stillHeld.contains(source) && !held.contains(source));
            changed = !gone.isEmpty() || !adopted.isEmpty();
        } finally {
            lock.unlock();
        }
        if (changed) {
            changes.advanceTo(changes.index() + 1);
        }
        freeAgain.forEach(this::freeInDatabase);
    }

    private void change(Set<String> claimed, Map<String, Instant> previousTicks, Set<String> handBack) {
        if (!claimed.isEmpty()) {
            lock.lock();
            try {
                held.addAll(claimed);
                this.previousTicks.putAll(previousTicks);
                handingBack.removeAll(claimed);
            } finally {
                lock.unlock();
            }
            log.info("Fleet: instance {} took {} sources", self, claimed.size());
            changes.advanceTo(changes.index() + 1);
        }
        if (!handBack.isEmpty()) {
            log.info("Fleet: instance {} hands back {} sources", self, handBack.size());
            lock.lock();
            try {
                // Not claimed or chosen again while the hand-back waits for their ticks.
                handingBack.addAll(handBack);
            } finally {
                lock.unlock();
            }
            Thread.ofVirtual().name("fleet-hand-back").start(() -> handBackAfterNextTicks(handBack));
        }
    }

    private void freeInDatabase(String source) {
        freeInDatabase(source, null);
    }

    private void freeInDatabase(String source, Instant lastTick) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            table.free(c, source, lastTick);
            lock.lock();
            try {
                handingBack.remove(source);
            } finally {
                lock.unlock();
            }
        } catch (SQLException e) {
            log.warn("Fleet: cannot hand source {} back now; its lease expires by itself: {}", source, e.getMessage());
        }
    }
}
