package io.pgharvest.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which status changes wake blocking status queries: state and lanes do, tick timings do not. */
@Tag("fast")
class StatusSignificanceTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void tickTimingsAloneAreNotSignificant() {
        var before = status(SessionState.CONNECTED, Duration.ofSeconds(10), T0, metric("a", MetricLane.PIPELINE, null, T0));
        var after = status(SessionState.CONNECTED, Duration.ofSeconds(10), T0.plusSeconds(10),
                metric("a", MetricLane.PIPELINE, null, T0.plusSeconds(10)));
        assertThat(StatusChanges.significantlyDifferent(before, after)).isFalse();
    }

    @Test
    void stateLaneErrorAndPeriodAreSignificant() {
        var base = status(SessionState.CONNECTED, Duration.ofSeconds(10), T0, metric("a", MetricLane.PIPELINE, null, T0));
        assertThat(StatusChanges.significantlyDifferent(base,
                status(SessionState.DISCONNECTED, Duration.ofSeconds(10), T0, metric("a", MetricLane.PIPELINE, null, T0)))).isTrue();
        assertThat(StatusChanges.significantlyDifferent(base,
                status(SessionState.CONNECTED, Duration.ofSeconds(10), T0, metric("a", MetricLane.SOLO, null, T0)))).isTrue();
        assertThat(StatusChanges.significantlyDifferent(base,
                status(SessionState.CONNECTED, Duration.ofSeconds(10), T0, metric("a", MetricLane.PIPELINE, "boom", T0)))).isTrue();
        assertThat(StatusChanges.significantlyDifferent(base,
                status(SessionState.CONNECTED, Duration.ofSeconds(5), T0, metric("a", MetricLane.PIPELINE, null, T0)))).isTrue();
        assertThat(StatusChanges.significantlyDifferent(base, status(SessionState.CONNECTED, Duration.ofSeconds(10), T0,
                metric("a", MetricLane.PIPELINE, null, T0), metric("b", MetricLane.PIPELINE, null, T0)))).isTrue();
    }

    private static MetricRuntimeStatus metric(String name, MetricLane lane, String error, Instant lastSuccess) {
        return new MetricRuntimeStatus(name, 10, lane, lastSuccess, error, error == null ? null : lastSuccess,
                lastSuccess.plusSeconds(10));
    }

    private static SourceRuntimeStatus status(SessionState state, Duration period, Instant lastTick,
            MetricRuntimeStatus... metrics) {
        return new SourceRuntimeStatus("s", state, state == SessionState.CONNECTED, null, null, "15.4", 150004, false,
                "123", period, lastTick, Duration.ofMillis(3), 7, 0, List.of(metrics), null, 0, null);
    }
}
