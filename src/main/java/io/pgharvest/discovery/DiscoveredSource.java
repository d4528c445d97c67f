package io.pgharvest.discovery;

import io.pgharvest.model.Source;
import java.util.Objects;

/**
 * One source found by a {@link SourceDiscoverer}.
 *
 * @param source what to collect, under its derived name
 * @param role what this member is in the configured source's topology, shown in the status:
 *     the database name for continuous discovery, the member's role ({@code primary},
 *     {@code replica}, ...) for a cluster; null when there is nothing to say
 * @param added metrics collected from it whatever its selection ({@link AddedMetrics#NONE} for none)
 */
public record DiscoveredSource(Source source, String role, AddedMetrics added) {

    public DiscoveredSource {
        Objects.requireNonNull(source, "source");
        added = added == null ? AddedMetrics.NONE : added;
    }

    /** A source found with nothing added. */
    public DiscoveredSource(Source source, String role) {
        this(source, role, AddedMetrics.NONE);
    }

    public String name() {
        return source.name();
    }
}
