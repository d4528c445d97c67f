package io.pgharvest.reaper;

import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The last status of discovered sources whose reapers were retired (the source left its
 * discovering source's set), kept for {@code pgharvest.discovery.retired-status-retention} so an
 * operator still sees what became of a member that disappeared.
 */
final class RetiredStatuses {

    /** A retired discovered source's last status, who discovered it, its role and when it was retired. */
    private record Retired(SourceRuntimeStatus status, String owner, String role, Instant at) {
    }

    private final Map<String, Retired> retired = new ConcurrentHashMap<>();
    private final Duration retention;
    private final Supplier<Instant> now;

    RetiredStatuses(Duration retention, Supplier<Instant> now) {
        this.retention = retention;
        this.now = now;
    }

    /** Keeps {@code last} (made {@code stopped}) of the source {@code owner}'s discovery found in {@code role}. */
    void retire(SourceRuntimeStatus last, String owner, String role) {
        retired.put(last.source(), new Retired(last.withState(SessionState.STOPPED, null, null), owner, role,
                now.get()));
    }

    /** The source collects again. */
    void forget(String source) {
        retired.remove(source);
    }

    void forgetExpired() {
        retired.values().removeIf(this::expired);
    }

    void clear() {
        retired.clear();
    }

    /** The kept status of {@code source}, unless older than the retention. */
    Optional<SourceRuntimeStatus> status(String source) {
        Retired gone = retired.get(source);
        return gone == null || expired(gone) ? Optional.empty() : Optional.of(gone.status());
    }

    /** The retired members {@code owner}'s discovery found, by name, leaving out those {@code running} again. */
    List<DiscoveryStatus.Member> membersOf(String owner, Predicate<String> running) {
        return retired.values().stream()
                .filter(r -> owner.equals(r.owner()) && !expired(r))
                .filter(r -> !running.test(r.status().source()))
                .sorted(Comparator.comparing((Retired r) -> r.status().source()))
                .map(r -> new DiscoveryStatus.Member(r.status().source(), r.role(), SessionState.STOPPED, r.at()))
                .toList();
    }

    private boolean expired(Retired gone) {
        return !gone.at().plus(retention).isAfter(now.get());
    }
}
