package io.pgharvest.api;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wrong API tokens counted per client, so that guessing the token is slow: a client that sends more
 * than {@link AuthThrottleProperties#failuresPerMinute()} wrong tokens within a minute is refused
 * for a back-off that doubles with each further burst ({@link AuthThrottleProperties}). The right
 * token from another client is never affected; during its back-off the throttled client is refused
 * whatever it sends, or a right guess would still tell it so.
 *
 * <p>Memory is bounded: at most {@code maxClients} clients are remembered, the least recently seen
 * forgotten first (an access-ordered map), so a flood from many addresses cannot grow the heap.
 * A forgotten client starts with a fresh allowance, which is the price of that bound. One log line
 * per burst, naming the client and never the token.
 *
 * <p>Threading: every method takes one lock; the work under it is a map lookup and a few fields.
 */
final class FailedAuthentications {

    private static final Logger log = LoggerFactory.getLogger(FailedAuthentications.class);
    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    private final AuthThrottleProperties limits;
    private final LongSupplier nanoTime;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Client> clients;

    FailedAuthentications(AuthThrottleProperties limits, LongSupplier nanoTime) {
        this.limits = limits;
        this.nanoTime = nanoTime;
        int max = limits.maxClients();
        this.clients = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Client> eldest) {
                return size() > max;
            }
        };
    }

    /** One client's failures; guarded by the lock. */
    private static final class Client {
        long windowStart;
        int failures;
        long blockedUntil;
        boolean blocked;
        int bursts;
    }

    /** Seconds {@code address} must still wait (rounded up), or 0 when it may try a token now. */
    long retryAfterSeconds(String address) {
        long now = nanoTime.getAsLong();
        lock.lock();
        try {
            Client client = clients.get(key(address));
            return client == null || !client.blocked || now - client.blockedUntil >= 0 ? 0
                    : seconds(client.blockedUntil - now);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts a wrong token from {@code address}.
     *
     * @return seconds the client must now wait when this failure started a back-off, else 0
     */
    long failed(String address) {
        long now = nanoTime.getAsLong();
        String key = key(address);
        long backOff;
        int failures;
        lock.lock();
        try {
            Client client = clients.computeIfAbsent(key, k -> new Client());
            if (client.blocked && now - client.blockedUntil >= 0) {
                client.blocked = false;
                if (now - client.blockedUntil > limits.maxBackOff().toNanos()) {
                    client.bursts = 0; // quiet for longer than the longest back-off: forgiven
                }
            }
            if (client.failures == 0 || now - client.windowStart >= MINUTE) {
                client.windowStart = now;
                client.failures = 0;
            }
            failures = ++client.failures;
            if (failures <= limits.failuresPerMinute()) {
                return 0;
            }
            backOff = backOff(client.bursts++);
            client.blocked = true;
            client.blockedUntil = now + backOff;
            client.failures = 0;
        } finally {
            lock.unlock();
        }
        long seconds = seconds(backOff);
        log.warn("API: {} wrong tokens from {} within a minute; its requests are refused (429) for {} s"
                + " (pgharvest.api.auth-throttle)", failures, key, seconds);
        return seconds;
    }

    /** Clients remembered now (for tests: the bound holds). */
    int remembered() {
        lock.lock();
        try {
            return clients.size();
        } finally {
            lock.unlock();
        }
    }

    private long backOff(int earlierBursts) {
        long first = limits.firstBackOff().toNanos();
        long max = limits.maxBackOff().toNanos();
        long backOff = first;
        for (int i = 0; i < earlierBursts && backOff < max; i++) {
            backOff = backOff > max / 2 ? max : backOff * 2;
        }
        return Math.min(backOff, max);
    }

    private static long seconds(long nanos) {
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }

    /**
     * The client an address belongs to: the address itself, or for IPv6 its /64 network (one host
     * usually holds a whole /64 and could otherwise rotate through it). {@code getRemoteAddr} gives a
     * literal, so this never looks a name up.
     */
    static String key(String address) {
        if (address == null || address.indexOf(':') < 0) {
            return String.valueOf(address);
        }
        try {
            InetAddress parsed = InetAddress.getByName(address.startsWith("[") ? address.substring(1,
                    address.length() - 1) : address);
            if (parsed instanceof Inet6Address) {
                byte[] bytes = parsed.getAddress();
                var prefix = new StringBuilder();
                for (int i = 0; i < 8; i += 2) {
                    prefix.append(Integer.toHexString((bytes[i] & 0xFF) << 8 | bytes[i + 1] & 0xFF)).append(':');
                }
                return prefix.append(":/64").toString();
            }
            return parsed.getHostAddress();
        } catch (UnknownHostException e) {
            return address;
        }
    }
}
