package io.pgharvest.kind;

import io.pgharvest.discovery.SourceDiscoverer;
import io.pgharvest.model.SourceKind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The kinds of source this build has code for, as the admin API and the console list them: a kind
 * is here when a kind's package registered an {@link Endpoint} for it (its sources are collected)
 * or a {@link SourceDiscoverer} (it stands for the sources it finds), or both. A kind with neither
 * is never offered. Immutable once built.
 */
public final class KindRegistry {

    private final List<Entry> kinds;

    KindRegistry(EndpointRegistry endpoints, Collection<? extends SourceDiscoverer> discoverers) {
        Set<SourceKind> discovering = new HashSet<>();
        discoverers.forEach(discoverer -> discovering.addAll(discoverer.kinds()));
        var list = new ArrayList<Entry>();
        for (SourceKind kind : SourceKind.values()) {
            boolean collected = endpoints.hasSession(kind);
            if (collected || discovering.contains(kind)) {
                list.add(new Entry(kind, collected, discovering.contains(kind)));
            }
        }
        this.kinds = List.copyOf(list);
    }

    /** Every kind with an endpoint or a discoverer, in the order the kinds are registered ({@link SourceKind#values()}, the default first). */
    public List<Entry> kinds() {
        return kinds;
    }

    /** The labels of {@link #kinds()}: the values a source's {@code kind} may take. */
    public List<String> labels() {
        return kinds.stream().map(entry -> entry.kind().label()).toList();
    }

    /**
     * One kind.
     *
     * @param collected whether its sources have a session of their own (and a connection test)
     * @param discovers whether it stands for sources it finds (databases, cluster members)
     */
    public record Entry(SourceKind kind, boolean collected, boolean discovers) {
    }
}
