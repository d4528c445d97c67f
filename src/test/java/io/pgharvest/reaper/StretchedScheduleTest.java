package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A slow server gets fewer ticks, not more work: after a tick that timed out without any answer,
 * or that took longer than its period, the source's next ticks are skipped (one period, doubling
 * per slow tick), counted, and explained in the source's status and meters.
 */
class StretchedScheduleTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void ticksAfterATimedOutTickAreSkippedCountedAndExplained() throws Exception {
        String db = "stretch_lock_db";
        pg.createDatabase(db);
        pg.execute(db, "create table if not exists stretch_target(id int)");
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.100Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("stretch", pg.connStr(db), Map.of("locked", 10)),
                List.of(metric("locked", "select count(*) as n from public.stretch_target"))), kit.context, timer);
        var roundTrips = new ArrayList<Double>();
        int sleeps = 1;
        SourceRuntimeStatus slow;
        try (Connection holder = pg.connect(db); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("lock table stretch_target in access exclusive mode");
            reaper.start();
            for (; sleeps <= 8; sleeps++) {
                double before = BoundedRoundTripsTest.roundTrips(kit, "stretch");
                timer.advanceTo(timer.awaitSleepRequests(sleeps));
                timer.awaitSleepRequests(sleeps + 1);
                roundTrips.add(BoundedRoundTripsTest.roundTrips(kit, "stretch") - before);
            }
            slow = reaper.status();
            holder.rollback();
        }
        // 8 grid points: slow tick, 1 skipped, slow, 2 skipped, slow, 3 of 4 skipped so far.
        long ran = roundTrips.stream().filter(n -> n > 0).count();
        long skipped = roundTrips.stream().filter(n -> n == 0).count();
        assertThat(roundTrips).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(1.0));
        assertThat(ran).isEqualTo(3);
        assertThat(slow.stretchedTicks()).isEqualTo(skipped).isEqualTo(5);
        assertThat(slow.stretchReason()).contains("server slow").contains("55P03").contains("skipped");
        assertThat(slow.state()).isEqualTo(SessionState.CONNECTED);
        assertThat(kit.registry.get("pgharvest.ticks.stretched").tag("source", "stretch").tag("reason", "timeout")
                .counter().count()).isEqualTo(5.0);
        // The heartbeat costs nothing and goes on: the session is open.
        assertThat(kit.publisher.of("stretch", ReaperPlan.INSTANCE_UP_METRIC)).hasSize(8);

        // The lock is gone: the skipped stretch runs out, then every grid point runs again.
        var delivered = new ArrayList<Integer>();
        for (int end = sleeps + 6; sleeps <= end; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            delivered.add(kit.publisher.of("stretch", "locked").size());
        }
        long stretchedAtEnd = reaper.status().stretchedTicks();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        assertThat(delivered.getLast() - delivered.get(delivered.size() - 3)).isEqualTo(2);
        // The third slow tick stretched by 4 periods: 2 of them were still ahead.
        assertThat(stretchedAtEnd).isEqualTo(slow.stretchedTicks() + 2);
    }

    @Test
    void aTickLongerThanItsPeriodStretchesTheSchedule() throws Exception {
        String db = "stretch_overrun_db";
        pg.createDatabase(db);
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.100Z"));
        // One-second ticks whose query takes 1.3 s (within the 5 s statement timeout).
        var reaper = new SourceReaper(ReaperTestKit.config(source("overrun", pg.connStr(db), Map.of("sleeper", 1)),
                List.of(metric("sleeper", "select pg_sleep(1.3) as slept"))), kit.context, timer);
        reaper.start();
        for (int sleeps = 1; sleeps <= 4; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
        }
        SourceRuntimeStatus status = reaper.status();
        double stretchedMeter = kit.registry.get("pgharvest.ticks.stretched").tag("source", "overrun")
                .tag("reason", "overrun").counter().count();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        // Grid points 1..4: run (overran), skipped, run (overran), skipped.
        assertThat(kit.publisher.of("overrun", "sleeper")).hasSize(2);
        assertThat(status.stretchedTicks()).isEqualTo(2);
        assertThat(status.stretchReason()).contains("longer than its period of 1000 ms");
        assertThat(stretchedMeter).isEqualTo(2.0);
    }
}
