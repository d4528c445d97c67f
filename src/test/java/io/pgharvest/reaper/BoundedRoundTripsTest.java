package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Whatever fails, a source adds at most pgharvest.reaper.max-extra-round-trips (2 here) round
 * trips to a tick; a held lock delays only the metrics that wait for it and demotes none to the
 * solo lane.
 */
class BoundedRoundTripsTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final int METRICS = 24;

    @Test
    void aBrokenMetricAmongManyIsFoundWithinTheAllowanceAndOnlyItIsDemoted() throws Exception {
        String db = "bounded_broken_db";
        pg.createDatabase(db);
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        for (int i = 1; i <= METRICS; i++) {
            metrics.add(metric("m%02d".formatted(i), "select " + i + " as v"));
            selection.put("m%02d".formatted(i), 10);
        }
        metrics.add(metric("m13x", "select * from no_such_table_bounded"));
        selection.put("m13x", 10);
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.200Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("bounded", pg.connStr(db), selection), metrics),
                kit.context, timer);
        reaper.start();
        var roundTripsPerTick = new ArrayList<Double>();
        SourceRuntimeStatus status = null;
        // Bisection: 25 suspects in 2 groups per tick narrow down to the culprit in a few ticks.
        for (int sleeps = 1; sleeps <= 8; sleeps++) {
            double before = roundTrips(kit, "bounded");
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            roundTripsPerTick.add(roundTrips(kit, "bounded") - before);
            status = reaper.status();
        }
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        assertThat(roundTripsPerTick).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(3.0));
        Map<String, MetricRuntimeStatus> byName = byName(status);
        assertThat(byName.get("m13x").lane()).isEqualTo(MetricLane.SOLO);
        assertThat(byName.get("m13x").lastError()).contains("42P01");
        assertThat(byName.values()).filteredOn(m -> !m.name().equals("m13x"))
                .allSatisfy(m -> assertThat(m.lane()).isEqualTo(MetricLane.PIPELINE));
        // Once found, every healthy metric is delivered on every tick again.
        Instant lastTick = status.lastTickStart();
        assertThat(kit.publisher.all().stream().filter(m -> m.time().equals(lastTick))
                .filter(m -> m.metric().startsWith("m") && !m.metric().equals("m13x")).count())
                .isEqualTo(METRICS);
    }

    /**
     * Half the metrics wait for a lock another session holds, until their lock timeout: the round
     * trip stops at the first of them, but what came before it is delivered and the rest is sent
     * again within the allowance, so the metrics that do not need the table are delivered on every
     * tick. The waiting ones go to the back of the pipeline, so from the third tick on the lock
     * costs one overrun and no extra round trip a tick; a lock is nobody's fault here, so no metric
     * is demoted to the solo lane, and the server answered in time, so nothing is stretched.
     */
    @Test
    void aHeldLockDelaysOnlyTheMetricsThatWaitForItAndDemotesNone() throws Exception {
        String db = "bounded_lock_db";
        pg.createDatabase(db);
        pg.execute(db, "create table if not exists locked_target(id int)");
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        var free = new ArrayList<String>();
        for (int i = 1; i <= 12; i++) {
            // Half read the locked table, half do not: the first waiting one stops the round trip.
            String sql = i % 2 == 0 ? "select count(*) + " + i + " as v from public.locked_target" : "select " + i + " as v";
            metrics.add(metric("l%02d".formatted(i), sql));
            selection.put("l%02d".formatted(i), 10);
            if (i % 2 == 1) {
                free.add("l%02d".formatted(i));
            }
        }
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.200Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("locked", pg.connStr(db), selection), metrics),
                kit.context, timer);
        var roundTripsPerWake = new ArrayList<Double>();
        int sleeps = 1;
        try (Connection holder = pg.connect(db); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("lock table locked_target in access exclusive mode");
            reaper.start();
            // Every metric of the table waits on the lock until the 1 s lock timeout of the test kit.
            for (; sleeps <= 6; sleeps++) {
                double before = roundTrips(kit, "locked");
                timer.advanceTo(timer.awaitSleepRequests(sleeps));
                timer.awaitSleepRequests(sleeps + 1);
                roundTripsPerWake.add(roundTrips(kit, "locked") - before);
                // The first tick's allowance ends at its third waiting metric; from then on every free one arrives.
                Instant tick = reaper.status().lastTickStart();
                assertThat(kit.publisher.all().stream().filter(m -> m.time().equals(tick)).map(m -> m.metric()))
                        .as("wake %d", sleeps).containsAll(sleeps == 1 ? free.subList(0, 3) : free);
            }
            SourceRuntimeStatus underLock = reaper.status();
            assertThat(byName(underLock).values()).allSatisfy(m -> assertThat(m.lane()).isEqualTo(MetricLane.PIPELINE));
            assertThat(roundTripsPerWake).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(3.0));
            assertThat(roundTripsPerWake.subList(2, roundTripsPerWake.size())).allSatisfy(n -> assertThat(n).isEqualTo(1.0));
            assertThat(underLock.stretchedTicks()).isZero();
            assertThat(byName(underLock).get("l02").lastError()).contains("55P03");
            holder.rollback();
        }
        // Lock gone: every metric is delivered again.
        SourceRuntimeStatus after = null;
        for (int end = sleeps + 8; sleeps <= end; sleeps++) {
            double before = roundTrips(kit, "locked");
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            assertThat(roundTrips(kit, "locked") - before).isLessThanOrEqualTo(3.0);
            after = reaper.status();
        }
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        assertThat(byName(after).values()).allSatisfy(m -> assertThat(m.lane()).isEqualTo(MetricLane.PIPELINE));
        Instant lastTick = after.lastTickStart();
        assertThat(kit.publisher.all().stream().filter(m -> m.time().equals(lastTick))
                .filter(m -> m.metric().startsWith("l")).count()).isEqualTo(12);
    }

    static double roundTrips(ReaperTestKit kit, String source) {
        var counter = kit.registry.find("pgharvest.round.trips").tag("source", source).counter();
        return counter == null ? 0 : counter.count();
    }

    private static Map<String, MetricRuntimeStatus> byName(SourceRuntimeStatus status) {
        var byName = new LinkedHashMap<String, MetricRuntimeStatus>();
        status.metrics().forEach(m -> byName.put(m.name(), m));
        return byName;
    }
}
