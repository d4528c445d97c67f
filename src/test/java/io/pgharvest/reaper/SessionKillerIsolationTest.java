package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A metric that terminates its own backend (issue 26: 27 terminations in 40 s, every other
 * metric of the source lost) is found by the failure isolation and moved to the solo lane, after
 * which the other metrics are delivered on every tick. The metric calls a function installed on
 * the server, which pgharvest's check cannot see into; the source logs in as a pg_monitor role.
 */
class SessionKillerIsolationTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void aMetricAfterWhichTheSessionDiesGoesToTheSoloLaneAndTheOthersKeepCollecting() throws Exception {
        pg.createDatabase("killer_db");
        pg.execute("killer_db", """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'killer_monitor') then
                    create role killer_monitor login;
                    grant pg_monitor to killer_monitor;
                  end if;
                end $$;
                create or replace function goodbye() returns boolean language sql
                  as $f$ select pg_terminate_backend(pg_backend_pid()) $f$;
                """);
        var metrics = new ArrayList<io.pgharvest.model.MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        for (int i = 1; i <= 6; i++) {
            metrics.add(metric("good%02d".formatted(i), "select " + i + " as v"));
            selection.put("good%02d".formatted(i), 10);
        }
        metrics.add(metric("killer", "select public.goodbye() as bye"));
        selection.put("killer", 10);
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.300Z"));
        String connStr = "postgresql://killer_monitor@" + pg.host() + ":" + pg.port() + "/killer_db";
        var reaper = new SourceReaper(ReaperTestKit.config(source("killer", connStr, selection), metrics),
                kit.context, timer);
        reaper.start();
        int sleeps = 16;
        for (int sleep = 1; sleep <= sleeps; sleep++) {
            timer.advanceTo(timer.awaitSleepRequests(sleep));
        }
        timer.awaitSleepRequests(sleeps + 1);
        var status = reaper.status();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        var byName = status.metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
        assertThat(byName.get("killer").lane()).isEqualTo(MetricLane.SOLO);
        assertThat(byName.get("killer").lastError()).contains("57P01");
        assertThat(byName.get("good03").lane()).isEqualTo(MetricLane.PIPELINE);
        assertThat(kit.publisher.of("killer", "killer")).isEmpty();
        // Once the killer is isolated, every good metric is delivered on every tick: the last
        // ticks of the run each carry all six.
        Map<Instant, Set<String>> goodPerTick = kit.publisher.all().stream()
                .filter(m -> m.metric().startsWith("good"))
                .collect(Collectors.groupingBy(Measurement::time, java.util.TreeMap::new,
                        Collectors.mapping(Measurement::metric, Collectors.toSet())));
        List<Set<String>> last = new ArrayList<>(goodPerTick.values()).subList(Math.max(0, goodPerTick.size() - 4),
                goodPerTick.size());
        assertThat(goodPerTick.size()).isGreaterThanOrEqualTo(8);
        assertThat(last).hasSize(4).allSatisfy(metricsOfTick -> assertThat(metricsOfTick).hasSize(6));
    }
}
