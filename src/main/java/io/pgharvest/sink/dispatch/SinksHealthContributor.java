package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.SinkStatus;
import java.util.function.Supplier;
import java.util.LinkedHashMap;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code sinks} health component: one child per sink, UP after a successful write or
 * probe, UNKNOWN before the first, {@value #SPILLING_CODE} while its writes fail,
 * {@value #FAILED_CODE} while its writer is restarted after an unexpected error; with queue,
 * spill and error details. A sink being down is survivable (its
 * measurements are kept and spilled to disk), so that status is one the root's status order does
 * not know: it never turns pgharvest's own health DOWN. The {@code delivery} health group
 * ({@code /actuator/health/delivery}) orders it.
 */
final class SinksHealthContributor {

    static final String SPILLING_CODE = "SPILLING";
    static final Status SPILLING = new Status(SPILLING_CODE, "the sink does not accept writes; measurements are kept");
    static final String FAILED_CODE = "FAILED";
    static final Status FAILED = new Status(FAILED_CODE, "the sink's writer failed and is being restarted");

    private SinksHealthContributor() {
    }

    static CompositeHealthContributor of(SinkDispatcher dispatcher) {
        var children = new LinkedHashMap<String, HealthContributor>();
        for (SinkStatus status : dispatcher.statuses()) {
            String name = status.name();
            children.put(name, indicator(() -> dispatcher.statuses().stream()
                    .filter(s -> s.name().equals(name)).findFirst().orElseThrow()));
        }
        return CompositeHealthContributor.fromMap(children);
    }

    private static HealthIndicator indicator(Supplier<SinkStatus> status) {
        return () -> {
            SinkStatus s = status.get();
            Health.Builder health = s.writerFailure() != null ? Health.status(FAILED)
                    : s.up() ? Health.up()
                    : s.lastError() == null ? Health.unknown().withDetail("reason", "not written to or probed yet")
                    : Health.status(SPILLING);
            health.withDetail("type", s.type())
                    .withDetail("queued", s.queued())
                    .withDetail("spilled", s.spilled())
                    .withDetail("spilledBytes", s.spilledBytes())
                    .withDetail("written", s.written())
                    .withDetail("dropped", s.dropped())
                    .withDetail("failures", s.failures())
                    .withDetail("quarantined", s.quarantined())
                    .withDetail("quarantinedBytes", s.quarantinedBytes())
                    .withDetail("rejected", s.rejected())
                    .withDetail("rejectedBatches", s.rejectedBatches())
                    .withDetail("writerRestarts", s.writerRestarts());
            if (s.parked() > 0 || !s.conflicts().isEmpty()) {
                health.withDetail("parked", s.parked()).withDetail("conflicts", s.conflicts());
            }
            if (s.writerFailure() != null) {
                health.withDetail("writerFailure", s.writerFailure());
            }
            if (s.lastError() != null) {
                health.withDetail("lastError", s.lastError()).withDetail("lastErrorAt", s.lastErrorAt().toString());
            }
            return health.build();
        };
    }
}
