package io.pgharvest.reaper;

import io.pgharvest.model.MetricLane;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.store.ConfigStore;
import java.util.stream.Stream;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code sources} health component: one child per configured source, UP while its reaper
 * has a session, {@value #UNREACHABLE_CODE} with the reason while it cannot reach the source,
 * {@value #DISABLED_CODE} when disabled.
 *
 * <p>It describes the monitored fleet, not the collector: a database being down or disabled
 * must never turn pgharvest's own health DOWN or OUT_OF_SERVICE (load balancers and
 * orchestrators probe it and would take pgharvest out for the state of the databases it
 * watches). So the bad states are statuses of their own, which the root's status order does not
 * know and therefore ignores; the {@code fleet} health group
 * ({@code /actuator/health/fleet}) orders them, so it shows the worst source.
 *
 * <p>Only observes: reading a status never throws and never touches a source.
 */
final class SourcesHealthContributor implements CompositeHealthContributor {

    static final String UNREACHABLE_CODE = "UNREACHABLE";
    static final String DISABLED_CODE = "DISABLED";
    static final Status UNREACHABLE = new Status(UNREACHABLE_CODE, "pgharvest cannot reach the source");
    static final Status DISABLED = new Status(DISABLED_CODE, "the source is disabled");
    static final Status STALLED = new Status("STALLED", "the source stopped answering in the middle of a tick");
    static final Status FAILED = new Status("FAILED", "the source's reaper failed and is being restarted");
    static final Status REFUSED = new Status("REFUSED", "the server answered but pgharvest refused the session");

    private final ConfigStore store;
    private final ReaperService reapers;

    SourcesHealthContributor(ConfigStore store, ReaperService reapers) {
        this.store = store;
        this.reapers = reapers;
    }

    @Override
    public HealthContributor getContributor(String name) {
        Source source = store.snapshot().sources().get(name);
        return source == null ? null : indicator(source);
    }

    @Override
    public Stream<Entry> stream() {
        return store.snapshot().sources().values().stream()
                .map(source -> new Entry(source.name(), indicator(source)));
    }

    private HealthIndicator indicator(Source source) {
        return () -> health(source);
    }

    private Health health(Source source) {
        if (!source.enabled()) {
            return Health.status(DISABLED).withDetail("reason", "disabled").build();
        }
        var discovery = reapers.discovery(source.name());
        if (discovery.isPresent()) {
            return health(discovery.get());
        }
        return reapers.status(source.name()).map(SourcesHealthContributor::health)
                .orElseGet(() -> Health.unknown().withDetail("reason", "no reaper running").build());
    }

    /** A discovering source: its discovery's state; each discovered source reports in its own status. */
    private static Health health(io.pgharvest.model.DiscoveryStatus found) {
        Health.Builder builder = found.lastError() != null
                ? Health.status(UNREACHABLE).withDetail("reason", found.lastError())
                : found.lastDiscoveryAt() != null ? Health.up() : Health.unknown();
        return builder.withDetail("discovered", found.members().stream().filter(m -> m.retiredAt() == null).count())
                .build();
    }

    private static Health health(SourceRuntimeStatus status) {
        Health.Builder builder = switch (status.state()) {
            case CONNECTED -> Health.up();
            case DISCONNECTED -> Health.status(UNREACHABLE)
                    .withDetail("reason", String.valueOf(status.lastConnectionError()));
            case REFUSED -> Health.status(REFUSED).withDetail("reason", String.valueOf(status.lastConnectionError()));
            case STALLED -> Health.status(STALLED).withDetail("reason", String.valueOf(status.lastConnectionError()));
            case FAILED -> Health.status(FAILED).withDetail("reason", String.valueOf(status.lastConnectionError()));
            default -> Health.unknown();
        };
        if (status.serverVersion() != null) {
            builder.withDetail("serverVersion", status.serverVersion());
            builder.withDetail("inRecovery", status.inRecovery());
        }
        if (status.privilegeWarning() != null) {
            builder.withDetail("privilegeWarning", status.privilegeWarning());
        }
        if (status.noticeWarning() != null) {
            builder.withDetail("noticeWarning", status.noticeWarning());
        }
        long solo = status.metrics().stream().filter(m -> m.lane() == MetricLane.SOLO).count();
        if (solo > 0) {
            builder.withDetail("isolatedMetrics", solo);
        }
        return builder.build();
    }
}
