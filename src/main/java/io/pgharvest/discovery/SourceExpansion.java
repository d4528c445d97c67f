package io.pgharvest.discovery;

import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's view of the configured sources as the sources to collect: a source whose kind has
 * no {@link SourceDiscoverer} stands for itself; one whose kind has stands for what its
 * {@link DiscoveryLoop} found last. The reaper service calls {@link #expand} on every
 * reconciliation and is called back (the listener given to {@link #start}) whenever a loop's set
 * changes, so reapers are started and retired as databases or members come and go.
 */
public final class SourceExpansion {

    private final Map<SourceKind, SourceDiscoverer> discoverers = new HashMap<>();
    private final DiscoveryProperties properties;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, DiscoveryLoop> loops = new HashMap<>();
    private volatile Runnable onChange = () -> { };

    public SourceExpansion(List<SourceDiscoverer> discoverers, DiscoveryProperties properties, Clock clock) {
        for (SourceDiscoverer discoverer : discoverers) {
            for (SourceKind kind : discoverer.kinds()) {
                SourceDiscoverer previous = this.discoverers.put(kind, discoverer);
                if (previous != null) {
                    throw new IllegalStateException("two discoverers for kind " + kind.label() + ": "
                            + previous.getClass().getName() + " and " + discoverer.getClass().getName());
                }
            }
        }
        this.properties = properties;
        this.clock = clock;
    }

    /** No discoverers: every source stands for itself (tests of the engine alone). */
    public static SourceExpansion none() {
        return new SourceExpansion(List.of(), DiscoveryProperties.defaults(), Clock.systemUTC());
    }

    public DiscoveryProperties properties() {
        return properties;
    }

    /** Where set changes are reported from now on (a discovery loop's thread calls it). */
    public void start(Runnable listener) {
        onChange = listener;
    }

    /** Stops every discovery loop; does not wait for a discovery in flight. */
    public void stop() {
        lock.lock();
        try {
            loops.values().forEach(DiscoveryLoop::stop);
            loops.clear();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The sources to collect for the enabled configured sources: plain ones as they are,
     * discovering ones as their last discovery found (nothing before the first one succeeds).
     * Starts loops for new discovering sources, restarts those whose configuration changed (the
     * new loop starts with the old set, so nothing is retired in between) and stops the others.
     */
    public List<Collected> expand(Collection<Source> enabled) {
        lock.lock();
        try {
            var result = new ArrayList<Collected>();
            var stay = new HashMap<String, DiscoveryLoop>();
            for (Source source : enabled) {
                SourceDiscoverer discoverer = discoverers.get(source.kind());
                if (discoverer == null) {
                    result.add(new Collected(source, null, null, AddedMetrics.NONE));
                    continue;
                }
                DiscoveryLoop loop = loops.remove(source.name());
                if (loop == null || !loop.configured().equals(source)) {
                    List<DiscoveredSource> carried = loop == null ? List.of() : loop.found();
                    if (loop != null) {
                        loop.stop();
                    }
                    loop = new DiscoveryLoop(source, discoverer, properties.interval(), carried, clock,
                            () -> onChange.run());
                    loop.start();
                }
                stay.put(source.name(), loop);
                for (DiscoveredSource found : loop.found()) {
                    result.add(new Collected(found.source(), source.name(), found.role(), found.added()));
                }
            }
            loops.values().forEach(DiscoveryLoop::stop);
            loops.clear();
            loops.putAll(stay);
            return result;
        } finally {
            lock.unlock();
        }
    }

    /** The discovery state of a discovering source; empty for plain sources and unknown names. */
    public Optional<DiscoveryStatus> status(String configuredSource) {
        lock.lock();
        try {
            DiscoveryLoop loop = loops.get(configuredSource);
            return loop == null ? Optional.empty() : Optional.of(loop.status());
        } finally {
            lock.unlock();
        }
    }

    /**
     * One source to collect.
     *
     * @param discoveredBy the name of the configured source whose discovery found it; null for a
     *     configured source collected as it is
     * @param role the member's role or database, as its discoverer reported it
     * @param added metrics its discoverer adds to it ({@link AddedMetrics#NONE} for none)
     */
    public record Collected(Source source, String discoveredBy, String role, AddedMetrics added) {

        public String name() {
            return source.name();
        }
    }
}
