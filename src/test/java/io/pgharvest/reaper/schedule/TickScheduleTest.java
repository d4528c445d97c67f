package io.pgharvest.reaper.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class TickScheduleTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static TickSchedule plan(Map<String, Integer> seconds, Instant now, TickSchedule previous) {
        var intervals = new java.util.LinkedHashMap<String, Duration>();
        seconds.forEach((k, v) -> intervals.put(k, Duration.ofSeconds(v)));
        return TickSchedule.plan(intervals, Duration.ofSeconds(1), 0, now, previous);
    }

    @Test
    void periodIsTheGcdOfTheIntervals() {
        assertThat(plan(Map.of("a", 30, "b", 45, "c", 60), T0, null).period()).isEqualTo(Duration.ofSeconds(15));
        assertThat(plan(Map.of("a", 7, "b", 11), T0, null).period()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void coprimeIntervalsWakeOnlyWhenSomethingIsDue() {
        TickSchedule schedule = plan(Map.of("a", 7, "b", 11), T0, null);
        var wakes = new ArrayList<Long>();
        for (int i = 0; i < 8; i++) {
            Instant wake = schedule.nextWake();
            wakes.add(Duration.between(T0, wake).toSeconds());
            schedule.takeDue(wake);
        }
        assertThat(wakes).containsExactly(0L, 7L, 11L, 14L, 21L, 22L, 28L, 33L);
    }

    @Test
    void aTakenOverSourceRunsTheGridPointThePreviousOwnerDidNotReach() {
        // The previous owner last ticked at 10 s; the new owner starts at 11.4 s: 11 s runs at once.
        TickSchedule late = plan(Map.of("a", 1), T0.plusMillis(11_400), null);
        late.resumeAfter(T0.plusMillis(10_020));
        assertThat(late.nextWake()).isEqualTo(T0.plusSeconds(11));

        // It started at 10.6 s, before 11 s: nothing to run early, 11 s is next.
        TickSchedule inTime = plan(Map.of("a", 1), T0.plusMillis(10_600), null);
        inTime.resumeAfter(T0.plusMillis(10_020));
        assertThat(inTime.nextWake()).isEqualTo(T0.plusSeconds(11));

        // The previous owner already ran 11 s: never twice.
        TickSchedule done = plan(Map.of("a", 1), T0.plusMillis(11_400), null);
        done.resumeAfter(T0.plusMillis(11_010));
        assertThat(done.nextWake()).isEqualTo(T0.plusSeconds(12));
    }

    @Test
    void dueTimesStayOnTheGridWhateverTheTickDuration() {
        TickSchedule schedule = plan(Map.of("a", 2), T0, null);
        schedule.takeDue(T0);
        // The tick took 1.5 s and the reaper wakes late: the next run is still at T0 + 2 s.
        assertThat(schedule.nextWake()).isEqualTo(T0.plusSeconds(2));
        TickSchedule.DueTick late = schedule.takeDue(T0.plusMillis(2300));
        assertThat(late.scheduledAt()).isEqualTo(T0.plusSeconds(2));
        assertThat(schedule.nextWake()).isEqualTo(T0.plusSeconds(4));
    }

    @Test
    void anOverrunSkipsMissedGridPointsAndCountsThem() {
        TickSchedule schedule = plan(Map.of("a", 2, "b", 3), T0, null);
        schedule.takeDue(T0);
        // The previous tick overran until 7.5 s: points 2, 3, 4, 6 were missed, 6 is served.
        TickSchedule.DueTick tick = schedule.takeDue(T0.plusMillis(7500));
        assertThat(tick.metrics()).containsExactlyInAnyOrder("a", "b");
        assertThat(tick.scheduledAt()).isEqualTo(T0.plusSeconds(6));
        assertThat(tick.skippedPoints()).isEqualTo(3);
        assertThat(schedule.nextDue("a")).isEqualTo(T0.plusSeconds(8));
        assertThat(schedule.nextDue("b")).isEqualTo(T0.plusSeconds(9));
    }

    @Test
    void replanningKeepsTheDueTimeOfMetricsThatStay() {
        TickSchedule schedule = plan(Map.of("a", 10, "b", 15), T0, null);
        schedule.takeDue(T0);
        TickSchedule replanned = plan(Map.of("a", 10, "c", 4), T0.plusSeconds(3), schedule);
        assertThat(replanned.nextDue("a")).isEqualTo(T0.plusSeconds(10));
        assertThat(replanned.nextDue("b")).isNull();
        assertThat(replanned.nextDue("c")).isEqualTo(T0.plusSeconds(4));
        assertThat(replanned.period()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void phaseSpreadsSourcesOverThePeriod() {
        var intervals = Map.of("a", Duration.ofSeconds(30));
        List<Instant> firstWakes = new ArrayList<>();
        for (int seed = 0; seed < 5; seed++) {
            firstWakes.add(TickSchedule.plan(intervals, Duration.ofSeconds(1), seed * 7_000L, T0, null).nextWake());
        }
        assertThat(firstWakes).doesNotHaveDuplicates()
                .allSatisfy(w -> assertThat(Duration.between(T0, w)).isLessThan(Duration.ofSeconds(30)));
    }

    @Test
    void aTickThatServesSeveralPassedPointsCountsOnlyThePointsNothingRanFor() {
        TickSchedule schedule = plan(Map.of("a", 10, "b", 15), T0, null);
        schedule.takeDue(T0);
        schedule.takeDue(T0.plusSeconds(10));
        // Woken late at 21 s: b serves 15, a serves 20; nothing was skipped.
        assertThat(schedule.takeDue(T0.plusSeconds(21)).skippedPoints()).isZero();
        // Woken at 45 s instead of 30: a skipped 30, b serves 45 and a 40; 30 is the only lost point.
        assertThat(schedule.takeDue(T0.plusSeconds(45)).skippedPoints()).isEqualTo(1);
    }

    @Test
    void aShortenedIntervalBringsTheNextRunCloser() {
        TickSchedule schedule = plan(Map.of("slow", 3600), T0, null);
        schedule.takeDue(T0);
        // Last run at 0 s: with 10 s it is due at 10 s, not an hour later.
        TickSchedule replanned = plan(Map.of("slow", 10), T0.plusSeconds(5), schedule);
        assertThat(replanned.nextDue("slow")).isEqualTo(T0.plusSeconds(10));
        // Changed at 25 s, when 10 s would already be past: due at once (the next grid point).
        TickSchedule late = plan(Map.of("slow", 10), T0.plusSeconds(25), schedule);
        assertThat(late.nextDue("slow")).isEqualTo(T0.plusSeconds(30));
    }

    @Test
    void intervalsBelowTheMinimumPeriodAreRoundedOntoTheGrid() {
        var intervals = Map.of("a", Duration.ofSeconds(1), "b", Duration.ofSeconds(7));
        TickSchedule schedule = TickSchedule.plan(intervals, Duration.ofSeconds(5), 0, T0, null);
        assertThat(schedule.period()).isEqualTo(Duration.ofSeconds(5));
        assertThat(schedule.intervals()).containsEntry("a", Duration.ofSeconds(5)).containsEntry("b", Duration.ofSeconds(10));
    }
}
