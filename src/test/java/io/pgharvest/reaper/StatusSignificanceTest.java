package io.pgharvest.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.source.MetricRuntimeStatus;
import io.pgharvest.source.SourceRuntimeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which status changes wake blocking status queries: state and lanes do, tick timings do not. */
class StatusSignificanceTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void tickTimingsAloneAreNotSignificant() {
        var before = status("connected", Duration.ofSeconds(10), T0, metric("a", "pipeline", null, T0));
        var after = status("connected", Duration.ofSeconds(10), T0.plusSeconds(10),
                metric("a", "pipeline", null, T0.plusSeconds(10)));
        assertThat(ReaperService.significantlyDifferent(before, after)).isFalse();
    }

    @Test
    void stateLaneErrorAndPeriodAreSignificant() {
        var base = status("connected", Duration.ofSeconds(10), T0, metric("a", "pipeline", null, T0));
        assertThat(ReaperService.significantlyDifferent(base,
                status("disconnected", Duration.ofSeconds(10), T0, metric("a", "pipeline", null, T0)))).isTrue();
        assertThat(ReaperService.significantlyDifferent(base,
                status("connected", Duration.ofSeconds(10), T0, metric("a", "solo", null, T0)))).isTrue();
        assertThat(ReaperService.significantlyDifferent(base,
                status("connected", Duration.ofSeconds(10), T0, metric("a", "pipeline", "boom", T0)))).isTrue();
        assertThat(ReaperService.significantlyDifferent(base,
                status("connected", Duration.ofSeconds(5), T0, metric("a", "pipeline", null, T0)))).isTrue();
        assertThat(ReaperService.significantlyDifferent(base, status("connected", Duration.ofSeconds(10), T0,
                metric("a", "pipeline", null, T0), metric("b", "pipeline", null, T0)))).isTrue();
    }

    private static MetricRuntimeStatus metric(String name, String lane, String error, Instant lastSuccess) {
        return new MetricRuntimeStatus(name, 10, lane, lastSuccess, error, error == null ? null : lastSuccess,
                lastSuccess.plusSeconds(10));
    }

    private static SourceRuntimeStatus status(String state, Duration period, Instant lastTick,
            MetricRuntimeStatus... metrics) {
        return new SourceRuntimeStatus("s", state, state.equals("connected"), null, null, "15.4", 150004, false,
                "123", period, lastTick, Duration.ofMillis(3), 7, 0, List.of(metrics));
    }
}
