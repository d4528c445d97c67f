package io.pgharvest.discovery;

import io.pgharvest.model.BoundedText;
import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.Source;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one discovering source's {@link SourceDiscoverer} on its own virtual thread: at once, then
 * every rediscovery interval. A new set is published as one immutable list and reported to the
 * listener; a failed discovery keeps the last good set. The loop never dies from one failure.
 */
final class DiscoveryLoop {

    private static final Logger log = LoggerFactory.getLogger(DiscoveryLoop.class);

    private final Source configured;
    private final SourceDiscoverer discoverer;
    private final Duration interval;
    private final Clock clock;
    private final Runnable listener;
    private volatile List<DiscoveredSource> found;
    private volatile Instant lastDiscoveryAt;
    private volatile Instant nextDiscoveryAt;
    private volatile String lastError;
    private volatile Instant lastErrorAt;
    private volatile boolean stopped;
    private volatile Thread thread;

    DiscoveryLoop(Source configured, SourceDiscoverer discoverer, Duration defaultInterval,
            List<DiscoveredSource> initial, Clock clock, Runnable listener) {
        this.configured = configured;
        this.discoverer = discoverer;
        this.interval = discoverer.rediscoveryInterval(configured, defaultInterval);
        this.found = List.copyOf(initial);
        this.clock = clock;
        this.listener = listener;
    }

    Source configured() {
        return configured;
    }

    List<DiscoveredSource> found() {
        return found;
    }

    void start() {
        thread = Thread.ofVirtual().name("discovery-" + configured.name()).start(this::run);
    }

    /** Ends the loop; a discovery in flight is interrupted and its result dropped. */
    void stop() {
        stopped = true;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    DiscoveryStatus status() {
        var members = found.stream()
                .map(d -> new DiscoveryStatus.Member(d.name(), d.role(), null, null)).toList();
        return new DiscoveryStatus(lastDiscoveryAt, nextDiscoveryAt, lastError, lastErrorAt, members);
    }

    private void run() {
        while (!stopped) {
            discoverOnce();
            nextDiscoveryAt = clock.instant().plus(interval);
            try {
                Thread.sleep(interval);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void discoverOnce() {
        try {
            List<DiscoveredSource> next = List.copyOf(discoverer.discover(configured));
            if (stopped) {
                return;
            }
            lastDiscoveryAt = clock.instant();
            if (lastError != null) {
                log.info("Source {}: discovery works again", configured.name());
            }
            lastError = null;
            lastErrorAt = null;
            if (!next.equals(found)) {
                log.info("Source {}: discovered {} sources", configured.name(), next.size());
                found = next;
                listener.run();
            }
        } catch (DiscoveryException | RuntimeException e) {
            if (stopped) {
                return;
            }
            String message = BoundedText.messageOf(e);
            if (!Objects.equals(message, lastError)) {
                log.warn("Source {}: discovery failed, keeping the {} sources found before: {}",
                        configured.name(), found.size(), message);
            }
            lastError = message;
            lastErrorAt = clock.instant();
        }
    }
}
