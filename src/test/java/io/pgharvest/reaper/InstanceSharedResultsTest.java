package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two sources on one instance share an instance-level metric: the source that fetched it keeps
 * fetching it, the other reuses each result once, also when ticks jitter around the interval.
 */
class InstanceSharedResultsTest {

    private static final int TICKS = 6;

    @Test
    void theFetchingSourceStaysTheSameAndNoResultIsDeliveredTwice() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("shared_results_a");
        pg.createDatabase("shared_results_b");
        var serverWide = new MetricDefinition("server_wide", "", Map.of(10,
                "select count(*) as backends from pg_stat_activity"), List.of("*"), true, NodeStatus.ANY, null,
                null, null);
        var kit = new ReaperTestKit();
        Instant start = Instant.parse("2026-03-01T10:00:00Z");
        var a = new Driven("shared_results_a", pg, serverWide, kit, start);
        var b = new Driven("shared_results_b", pg, serverWide, kit, start);
        a.reaper.start();
        b.reaper.start();

        // One timeline for both clocks: always release the reaper due first, and wait until its
        // tick is over. Each reaper's ticks are late by 7 ms and 1 ms in turn, so that every other
        // tick comes 6 ms less than one interval after the previous one.
        while (a.ticks < TICKS || b.ticks < TICKS) {
            Driven next = b.ticks >= TICKS || (a.ticks < TICKS && !a.nextWake().isAfter(b.nextWake())) ? a : b;
            next.release(next.ticks % 2 == 0 ? Duration.ofMillis(7) : Duration.ofMillis(1));
        }
        a.stop();
        b.stop();

        List<Instant> timesA = a.times(kit);
        List<Instant> timesB = b.times(kit);
        assertThat(timesA).hasSize(TICKS).doesNotHaveDuplicates();
        assertThat(timesB).hasSize(TICKS).doesNotHaveDuplicates();
        // The instance was asked once per interval, always by the same source: the other one's
        // results are all results of that source.
        Set<Instant> union = new HashSet<>(timesA);
        union.addAll(timesB);
        assertThat(union.size()).as("distinct fetches of A %s and B %s", timesA, timesB)
                .isEqualTo(Math.max(Set.copyOf(timesA).size(), Set.copyOf(timesB).size()));
    }

    /** A reaper with its own manual clock. */
    private static final class Driven {
        final String name;
        final ManualTickTimer timer;
        final SourceReaper reaper;
        int sleeps = 1;
        int ticks;

        Driven(String name, TestPostgres pg, MetricDefinition metric, ReaperTestKit kit, Instant start) {
            this.name = name;
            this.timer = new ManualTickTimer(start);
            this.reaper = new SourceReaper(ReaperTestKit.config(source(name, pg.connStr(name),
                    Map.of(metric.name(), 10)), List.of(metric)), kit.context, timer);
        }

        Instant nextWake() throws InterruptedException {
            return timer.awaitSleepRequests(sleeps);
        }

        void release(Duration late) throws InterruptedException {
            timer.advanceTo(nextWake().plus(late));
            sleeps++;
            timer.awaitSleepRequests(sleeps);
            ticks++;
        }

        void stop() throws InterruptedException {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        }

        List<Instant> times(ReaperTestKit kit) {
            return kit.publisher.of(name, "server_wide").stream().map(Measurement::time).toList();
        }
    }
}
