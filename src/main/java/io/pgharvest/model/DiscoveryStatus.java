package io.pgharvest.model;

import java.time.Instant;
import java.util.List;

/**
 * What the discovery of a discovering source (the databases of a server, the members of a cluster) found, for the
 * source's status.
 *
 * @param lastDiscoveryAt when the last discovery succeeded; null before the first success
 * @param nextDiscoveryAt when the next discovery runs
 * @param lastError why the last discovery failed (the previous set keeps running); null after a success
 * @param members the sources collected for it, then those retired recently
 */
public record DiscoveryStatus(Instant lastDiscoveryAt, Instant nextDiscoveryAt, String lastError,
        Instant lastErrorAt, List<Member> members) {

    public DiscoveryStatus {
        members = List.copyOf(members);
        lastError = BoundedText.of(lastError);
    }

    public DiscoveryStatus withMembers(List<Member> newMembers) {
        return new DiscoveryStatus(lastDiscoveryAt, nextDiscoveryAt, lastError, lastErrorAt, newMembers);
    }

    /**
     * One discovered source.
     *
     * @param name its derived source name (the {@code dbname} of its measurements)
     * @param role the database name or the member's role in its cluster
     * @param state its reaper's state; {@link SessionState#STOPPED} once retired
     * @param retiredAt when it disappeared from the discovered set; null while collected
     */
    public record Member(String name, String role, SessionState state, Instant retiredAt) {
    }
}
