package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reaper against a real server, driven by a clock the test moves. */
class SourceReaperScheduleTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private final ReaperTestKit kit = new ReaperTestKit();
    private SourceReaper reaper;

    @BeforeAll
    static void createDatabase() {
        pg.createDatabase("schedule_db");
    }

    @AfterEach
    void stopReaper() throws InterruptedException {
        if (reaper != null) {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void metricsEveryTwoAndThreeSecondsRunExactlyAtTheirGridPointsAndTheReaperWakesOnlyThere() throws Exception {
        var source = source("grid", pg.connStr("schedule_db"), Map.of("every2", 2, "every3", 3));
        var config = ReaperTestKit.config(source, List.of(metric("every2", "select 2 as v"),
                metric("every3", "select 3 as v")));
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.500Z"));
        reaper = new SourceReaper(config, kit.context, timer);
        reaper.start();

        Instant first = timer.awaitSleepRequests(1);
        for (int sleeps = 1; sleeps <= 9; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
        }
        timer.awaitSleepRequests(10);

        List<Long> wakes = timer.sleepRequests().stream().map(w -> Duration.between(first, w).toMillis()).toList();
        assertThat(wakes).containsExactly(0L, 2000L, 3000L, 4000L, 6000L, 8000L, 9000L, 10000L, 12000L, 14000L);
        assertThat(runTimes("every2", first)).containsExactly(0L, 2000L, 4000L, 6000L, 8000L, 10000L, 12000L);
        assertThat(runTimes("every3", first)).containsExactly(0L, 3000L, 6000L, 9000L, 12000L);
        assertThat(reaper.status().skippedTicks()).isZero();
    }

    @Test
    void aConfigChangeMidRunKeepsTheNextDueTimeOfAnUnchangedMetric() throws Exception {
        var every2 = metric("every2", "select 2 as v");
        var every3 = metric("every3", "select 3 as v");
        var every5 = metric("every5", "select 5 as v");
        var source = source("replan", pg.connStr("schedule_db"), Map.of("every2", 2, "every3", 3));
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.250Z"));
        reaper = new SourceReaper(ReaperTestKit.config(source, List.of(every2, every3)), kit.context, timer);
        reaper.start();

        Instant first = timer.awaitSleepRequests(1);
        for (int sleeps = 1; sleeps <= 4; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
        }
        timer.awaitSleepRequests(5); // ticks at 0, 2, 3, 4 done; now = 4 s, next wake 6 s
        Instant every3DueBefore = nextDue(reaper, "every3");

        var changed = source("replan", pg.connStr("schedule_db"), Map.of("every2", 2, "every3", 3, "every5", 5));
        reaper.reconfigure(ReaperTestKit.config(changed, List.of(every2, every3, every5)));
        Instant every3DueAfter = awaitNextDueOf(reaper, "every5", "every3");

        assertThat(every3DueBefore).isEqualTo(first.plusSeconds(6));
        assertThat(every3DueAfter).isEqualTo(every3DueBefore);
    }

    private List<Long> runTimes(String metric, Instant first) {
        return kit.publisher.of("grid", metric).stream().map(Measurement::time)
                .map(t -> Duration.between(first, t).toMillis()).toList();
    }

    private static Instant nextDue(SourceReaper reaper, String metric) {
        return reaper.status().metrics().stream().filter(m -> m.name().equals(metric)).findFirst()
                .orElseThrow().nextDue();
    }

    /** Waits until the status lists {@code appearing}, then returns {@code metric}'s next due time. */
    private static Instant awaitNextDueOf(SourceReaper reaper, String appearing, String metric) {
        org.awaitility.Awaitility.await("reaper re-planned").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> reaper.status().metrics().stream().anyMatch(m -> m.name().equals(appearing)));
        return nextDue(reaper, metric);
    }
}
