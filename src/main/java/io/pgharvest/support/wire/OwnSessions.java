package io.pgharvest.support.wire;

import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;
import org.postgresql.PGProperty;

/**
 * The notice bound on the sessions of pgharvest's own databases: the configuration store's, the
 * PostgreSQL sink's and the fleet leases' pools ({@code support.SmallPools}) and the store
 * watcher's session. Their owners control triggers and functions on the tables pgharvest writes
 * (a trigger raising millions of notices during a COPY), and pgjdbc chains every notice as an
 * SQLWarning for the round trip: {@link #bounded} makes such sessions read through a
 * {@link ResultBytesBound} that keeps {@link ResultBytesBound#NOTICES_KEPT} notices per round
 * trip, as every monitoring session does. Results are not cut (pgharvest reads its own tables).
 *
 * <p>pgjdbc makes the socket factories by class name, per connection, on whatever thread connects
 * (a pool's own), so no opener can arm the bound after the login: these sockets arm themselves
 * when the StartupMessage goes out ({@link StartupWatch}), and count drops in one process-wide
 * tally, since a factory made by name has no instance to be handed one.
 */
public final class OwnSessions {

    /** Notices dropped on every own-database session of this process. */
    static final LongAdder DROPPED = new LongAdder();

    private OwnSessions() {
    }

    /** {@code properties}, with pgjdbc's socket and TLS factories set to the bounded ones. */
    public static Properties bounded(Properties properties) {
        properties.setProperty(PGProperty.SOCKET_FACTORY.getName(), SessionSockets.class.getName());
        properties.setProperty(PGProperty.SSL_FACTORY.getName(), SessionTls.class.getName());
        return properties;
    }

    /** Notices dropped so far on all own-database sessions, past each round trip's allowance. */
    public static long droppedNotices() {
        return DROPPED.sum();
    }
}
