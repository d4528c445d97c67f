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
 */
public record DiscoveredSource(Source source, String role) {

    public DiscoveredSource {
        Objects.requireNonNull(source, "source");
    }

    public String name() {
        return source.name();
    }
}
