package io.pgharvest.source;

import com.fasterxml.jackson.annotation.JsonValue;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.SourceOwner;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.model.StoreTable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code GET /api/v1/sources/{name}/status} reports about one source.
 *
 * @param state what the source is doing; until the collection engine reports, only what is configured
 * @param metrics the metrics collected while the server is a primary, with their intervals in seconds
 * @param standbyMetrics the metrics collected while the server is in recovery
 * @param modifyIndex the store index at which the source's configuration last changed
 * @param runtime what the source's reaper reports (connection, server, ticks, each metric's lane,
 *     last success and last error); null while no reaper runs for the source on this instance
 * @param discovery for a discovering source (continuous discovery, a cluster): what its discovery
 *     found, each discovered source with its state, and those retired recently; null otherwise
 * @param owner with several instances on one configuration database: which instance collects the
 *     source, its last tick and state as that instance last reported them; null with a single instance
 */
public record SourceStatus(
        String name,
        SourceKind kind,
        String group,
        boolean enabled,
        State state,
        Map<String, Integer> metrics,
        Map<String, Integer> standbyMetrics,
        long modifyIndex,
        SourceRuntimeStatus runtime,
        DiscoveryStatus discovery,
        SourceOwner owner) {

    public SourceStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
        standbyMetrics = Collections.unmodifiableMap(new LinkedHashMap<>(standbyMetrics));
    }

    /** The configured state of {@code source}, without runtime information. */
    public static SourceStatus configured(Source source, ConfigSnapshot snapshot) {
        return new SourceStatus(source.name(), source.kind(), source.group(), source.enabled(),
                source.enabled() ? State.CONFIGURED : State.DISABLED,
                snapshot.selectedMetrics(source, false), snapshot.selectedMetrics(source, true),
                snapshot.modifyIndex(StoreTable.SOURCES, source.name()), null, null, null);
    }

    /**
     * This status with the fleet's owner of the source. While another instance collects it, the
     * state is that instance's report; a source between owners stays {@link State#CONFIGURED}.
     */
    public SourceStatus withOwner(SourceOwner sourceOwner) {
        State ownerState = state;
        if (runtime == null && enabled && sourceOwner.instance() != null && !sourceOwner.thisInstance()
                && sourceOwner.state() != null) {
            ownerState = stateOf(sourceOwner.state());
        }
        return new SourceStatus(name, kind, group, enabled, ownerState, metrics, standbyMetrics, modifyIndex, runtime,
                discovery, sourceOwner);
    }

    /** This status with what the source's reaper reports. */
    public SourceStatus withRuntime(SourceRuntimeStatus runtimeStatus) {
        return new SourceStatus(name, kind, group, enabled, stateOf(runtimeStatus.state()), metrics, standbyMetrics,
                modifyIndex, runtimeStatus, discovery, owner);
    }

    private static State stateOf(SessionState sessionState) {
        return switch (sessionState) {
            case CONNECTED -> State.CONNECTED;
            case DISCONNECTED -> State.DISCONNECTED;
            case REFUSED -> State.REFUSED;
            case STALLED -> State.STALLED;
            case FAILED -> State.FAILED;
            default -> State.STARTING;
        };
    }

    /**
     * This status with what the source's discovery found. A discovering source has no reaper of
     * its own: it is {@code connected} when its last discovery succeeded, {@code disconnected}
     * when it failed.
     */
    public SourceStatus withDiscovery(DiscoveryStatus found) {
        State discoveryState = found.lastError() != null ? State.DISCONNECTED
                : found.lastDiscoveryAt() != null ? State.CONNECTED : State.STARTING;
        return new SourceStatus(name, kind, group, enabled, runtime == null ? discoveryState : state, metrics,
                standbyMetrics, modifyIndex, runtime, found, owner);
    }

    /** The life of a source as seen by the status endpoint. */
    public enum State {
        /** Enabled in the configuration; no reaper reports for it (yet). */
        CONFIGURED,
        /** Disabled in the configuration: not collected. */
        DISABLED,
        /** Its reaper runs but has not connected yet. */
        STARTING,
        /** Its reaper holds a session to the source. */
        CONNECTED,
        /** Its reaper cannot reach the source and retries with back-off. */
        DISCONNECTED,
        /** The server answered but pgharvest refused the session (a superuser login); the reason is the last connection error. */
        REFUSED,
        /** A tick has waited for the server's answer for longer than a tick period. */
        STALLED,
        /** Its reaper failed unexpectedly and is restarted with back-off. */
        FAILED;

        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
