package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A step of the system clock neither stops the reapers nor moves their schedule. */
class ClockStepTest {

    private static final TestPostgres pg = TestPostgres.shared();

    /** A wall clock the test can step, like an operator or a bad NTP server. */
    private static final class SteppableClock extends Clock {
        final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(offset.get());
        }
    }

    @Test
    void aReaperKeepsTickingWhenTheWallClockStepsBackAnHour() throws Exception {
        pg.createDatabase("clock_step_db");
        var wall = new SteppableClock();
        var kit = new ReaperTestKit();
        var reaper = new SourceReaper(ReaperTestKit.config(source("step", pg.connStr("clock_step_db"),
                Map.of("one", 1)), List.of(metric("one", "select 1 as a"))), kit.context, TickTimer.system(wall));
        reaper.start();
        try {
            kit.publisher.await(m -> m.metric().equals("one"), 1, Duration.ofSeconds(15));
            Instant beforeStep = kit.publisher.of("step", "one").getLast().time();
            wall.offset.set(Duration.ofHours(-1));

            int seen = kit.publisher.of("step", "one").size();
            kit.publisher.await(m -> m.metric().equals("one"), seen + 3, Duration.ofSeconds(15));

            var after = kit.publisher.of("step", "one");
            Instant last = after.getLast().time();
            assertThat(last).isAfter(beforeStep).isBefore(beforeStep.plus(Duration.ofMinutes(1)));
            assertThat(reaper.status().lastTickStart()).isAfter(beforeStep);
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void theMonotonicTimerIgnoresAWallClockStepAndSleepsTheMonotonicRemainder() throws Exception {
        long[] nanos = {1_000_000_000L};
        var timer = TickTimer.monotonic(Instant.parse("2026-03-01T10:00:00Z"), () -> nanos[0]);
        nanos[0] += Duration.ofSeconds(90).toNanos();

        assertThat(timer.now()).isEqualTo(Instant.parse("2026-03-01T10:01:30Z"));
        assertThat(timer.sleepUntil(Instant.parse("2026-03-01T10:01:29Z"), new WakeSignal())).isFalse();
    }
}
