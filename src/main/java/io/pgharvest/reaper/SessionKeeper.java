package io.pgharvest.reaper;

import io.pgharvest.kind.ServerFacts;
import io.pgharvest.kind.SessionRefusedException;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.BoundedText;
import io.pgharvest.reaper.instance.Instance;
import io.pgharvest.reaper.schedule.IdleSessionWatch;
import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import io.pgharvest.reaper.tick.CollectionPlan;
import io.pgharvest.reaper.tick.SourceDownException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one reaper's session: opens it through the source kind's {@link io.pgharvest.kind.Endpoint} unless the
 * reconnect back-off has not passed, re-reads the server's facts when due (at once while
 * discovery asks, {@link #recheckFactsUntil}), closes it when it is lost, and keeps the source's
 * membership of its {@link Instance} in step with the session.
 *
 * <p>A change of what the reaper should collect (a new session, a promotion or demotion) is
 * handed to the {@code replan} callback with the time to plan from.
 *
 * <p>Threading: owned by the reaper's thread, like everything here except
 * {@link #recheckFactsUntil}, which other threads set (a volatile write, read once per tick).
 */
final class SessionKeeper {

    private static final Logger log = LoggerFactory.getLogger(SessionKeeper.class);

    private final String name;
    private final ReaperContext context;
    private final Consumer<Instant> replan;
    /** Null while not connected. */
    private SourceSession session;
    /** The instance the session is on: one that shares nothing unless known (system identifier readable). */
    private Instance instance = Instance.alone();
    private int connectFailures;
    private Instant nextConnectAttempt = Instant.MIN;
    private String lastConnectionError;
    /** Whether the last attempt was refused by pgharvest itself (the server answered). */
    private boolean refused;
    private Instant lastConnectionErrorAt;
    private String loggedPrivilegeWarning;
    private boolean factsStale;
    private volatile Instant recheckFactsUntil = Instant.MIN;
    /** Why the last facts read found the server slow, or null. */
    private String slowReason;

    SessionKeeper(String name, ReaperContext context, Consumer<Instant> replan) {
        this.name = name;
        this.context = context;
        this.replan = replan;
    }

    /** The open session, or null. */
    SourceSession session() {
        return session;
    }

    boolean connected() {
        return session != null;
    }

    /** The facts of the open session, or null while not connected. */
    ServerFacts facts() {
        return session == null ? null : session.facts();
    }

    Instance instance() {
        return instance;
    }

    int connectFailures() {
        return connectFailures;
    }

    /** Whether pgharvest refused the last session the server accepted (see {@link SessionRefusedException}). */
    boolean refused() {
        return session == null && refused;
    }

    /** The current trouble connecting or the error that ended the session; null once connected again. */
    String lastConnectionError() {
        return lastConnectionError;
    }

    Instant lastConnectionErrorAt() {
        return lastConnectionErrorAt;
    }

    /** What the session's role can do beyond reading, or null (also while not connected). */
    String privilegeWarning() {
        return session == null ? null : session.privileges().warning();
    }

    /**
     * Names a notice flood on the open session (notices past the allowance per round trip,
     * dropped unread), or null (also while not connected).
     */
    String noticeWarning() {
        long dropped = session == null ? 0 : session.droppedNotices();
        return dropped == 0 ? null : "the server sent more notices than pgharvest keeps per round trip (a function"
                + " raising them in a loop?): " + dropped + " dropped unread on this session (docs/security.md)";
    }

    /** See {@link SourceReaper#recheckServerFactsUntil}. */
    void recheckFactsUntil(Instant until) {
        if (until.isAfter(recheckFactsUntil)) {
            recheckFactsUntil = until;
        }
    }

    /** Have the facts re-read on the next tick (a failing tick may mean a promotion or demotion). */
    void factsStale(boolean stale) {
        factsStale = stale;
    }

    /** Opens a session unless one is open or the reconnect back-off has not passed; re-plans after connecting. */
    boolean ensure(CollectionPlan config, Instant now) {
        if (session != null) {
            return true;
        }
        if (now.isBefore(nextConnectAttempt)) {
            return false;
        }
        try {
            session = context.endpoints().open(config.source().kind(), config.connection(), now);
            if (connectFailures > 0) {
                log.info("Source {}: connected again after {} failed attempts", name, connectFailures);
            }
            connectFailures = 0;
            refused = false;
            factsStale = false;
            // The status shows the current trouble, not an error that is over.
            lastConnectionError = null;
            lastConnectionErrorAt = null;
            warnOnceAboutPrivileges(session.privileges().warning());
            replan.accept(now);
            return true;
        } catch (SQLException e) {
            connectFailures++;
            refused = SessionRefusedException.isRefusal(e);
            Duration backoff = context.reconnectBackoff().after(connectFailures);
            nextConnectAttempt = now.plus(backoff);
            recordConnectionError(refused ? BoundedText.messageOf(e)
                    : "cannot connect [SQLState " + e.getSQLState() + "]: " + BoundedText.messageOf(e), now);
            if (connectFailures == 1 || Integer.bitCount(connectFailures) == 1) {
                log.warn("Source {}: {} (attempt {}, next in {} s)", name, lastConnectionError,
                        connectFailures, backoff.toSeconds());
            }
            return false;
        }
    }

    /** Logged when the role's privileges are first seen or change, not on every reconnect. */
    private void warnOnceAboutPrivileges(String warning) {
        if (warning != null && !warning.equals(loggedPrivilegeWarning)) {
            log.warn("Source {}: {}", name, warning);
        }
        loggedPrivilegeWarning = warning;
    }

    /**
     * Re-reads the facts when due (always while {@link #recheckFactsUntil} asks). A facts query
     * that fails without losing the session (the server did not answer within the facts' own
     * time limit) keeps the session: reconnecting would only add a backend to a busy server. The
     * tick then runs nothing, and a timeout counts as a slow tick ({@link #slowReason()}). On a
     * change of role or version it re-plans from {@code gridPoint} (this tick's point), so the new
     * role's metrics are due at once and run right after this tick rather than one period later.
     *
     * @return false when the facts could not be read and the tick should ask nothing more
     * @throws SQLException when the session is gone
     */
    boolean refreshFactsIfDue(Instant now, Instant gridPoint) throws SQLException {
        slowReason = null;
        if (now.isBefore(recheckFactsUntil)) {
            factsStale = true;
        }
        ServerFacts facts = session.facts();
        if (!factsStale && Duration.between(facts.readAt(), now).compareTo(context.factsRefreshInterval()) < 0) {
            return true;
        }
        ServerFacts fresh;
        try {
            fresh = session.refreshFacts(now);
        } catch (SQLException e) {
            SourceSession.Failure failure = session.classify(e);
            if (failure == SourceSession.Failure.BROKEN) {
                throw e;
            }
            factsStale = true;
            String reason = "facts query failed, session kept [SQLState " + e.getSQLState() + "]: "
                    + BoundedText.messageOf(e);
            if (failure == SourceSession.Failure.SLOW) {
                slowReason = "server slow: " + reason;
            } else {
                log.warn("Source {}: {}", name, reason);
            }
            return false;
        }
        factsStale = false;
        if (fresh.inRecovery() != facts.inRecovery() || fresh.majorVersion() != facts.majorVersion()) {
            log.info("Source {}: server is now {} (version {})", name,
                    fresh.inRecovery() ? "a standby" : "a primary", fresh.displayVersion());
            replan.accept(gridPoint.isAfter(now) ? now : gridPoint);
        }
        return true;
    }

    /** Why the last {@link #refreshFactsIfDue} found the server slow, or null. */
    String slowReason() {
        return slowReason;
    }

    /**
     * Joins the instance the session is on with the metrics now active (or moves to another one
     * after a reconnect to another server, or leaves when there is no session or the instance is
     * unknown). Called after every re-plan.
     */
    void syncInstance(CollectionPlan config, Set<String> activeMetrics) {
        ServerFacts facts = facts();
        String key = facts == null ? null : facts.instanceKey(config.connection().hosts().getFirst().toString());
        if (instance.shared() && !instance.key().equals(key)) {
            leaveInstance();
        }
        if (key != null) {
            instance = context.instances().join(key, name, facts.database(), activeMetrics);
        }
    }

    private void leaveInstance() {
        context.instances().leave(instance, name);
        instance = Instance.alone();
    }

    /** The session was lost in a tick: closed, the first reconnect at the next tick, then backing off. */
    void lost(SourceDownException e, Instant now) {
        log.warn("Source {}: {}", name, e.getMessage());
        recordConnectionError(e.getMessage(), now);
        close();
        connectFailures = 1;
        nextConnectAttempt = now;
    }

    /**
     * Sleeps until {@code until} or a wake-up. Meanwhile the idle-session watch looks at the open
     * session ({@link ReaperContext#idleSessions}); when the server sent something (it does before
     * ending a session) the reaper wakes and looks: a session ended for a reason of its own
     * (idle_session_timeout, a terminated backend) is replaced at once and the source stays
     * connected; a server that is gone reads as disconnected, with the reason, from then on.
     *
     * @return whether the session was found ended (and replaced when the server is there)
     */
    boolean sleepWatched(TickTimer timer, Instant until, WakeSignal wake, CollectionPlan config)
            throws InterruptedException {
        IdleSessionWatch watch = context.idleSessions();
        if (watch == null || session == null) {
            timer.sleepUntil(until, wake);
            return false;
        }
        if (watch.sleepUntil(timer, until, wake, session::anythingArrived)) {
            Instant now = timer.now();
            if (endedWhileIdle(now)) {
                ensure(config, now);
                return true;
            }
        }
        return false;
    }

    /**
     * Looks whether the server ended the idle session ({@link SourceSession#endedWhileIdle}); if so
     * the session is closed as lost, the source reads as disconnected, and the next tick reconnects.
     *
     * @return whether the session was found ended
     */
    boolean endedWhileIdle(Instant now) {
        if (session == null) {
            return false;
        }
        var ended = session.endedWhileIdle();
        if (ended.isEmpty()) {
            return false;
        }
        log.warn("Source {}: {}", name, ended.get());
        recordConnectionError(ended.get(), now);
        close();
        connectFailures = 1;
        nextConnectAttempt = now;
        return true;
    }

    /** Closes the session and allows a new one at once (found closed while idle, or new connection settings). */
    void reconnectNow() {
        close();
        nextConnectAttempt = Instant.MIN;
    }

    /** Forgets past connect failures (the connection settings changed). */
    void forgetFailures() {
        connectFailures = 0;
    }

    private void recordConnectionError(String message, Instant at) {
        lastConnectionError = BoundedText.of(message);
        lastConnectionErrorAt = at;
    }

    /** Leaves the instance and closes the session, if any. */
    void close() {
        leaveInstance();
        if (session != null) {
            session.close();
            session = null;
        }
    }
}
