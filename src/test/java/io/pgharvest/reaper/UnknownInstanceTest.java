package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Without pg_monitor the system identifier is unreadable, so two sources cannot prove they
 * watch the same instance: each runs its instance-level metrics itself and never receives rows
 * fetched through another source's session.
 */
class UnknownInstanceTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void instanceLevelResultsAreNotSharedWhenTheInstanceIsUnknown() throws Exception {
        pg.createDatabase("unknown_instance_a");
        pg.createDatabase("unknown_instance_b");
        pg.execute("postgres", """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'no_monitor') then
                    create role no_monitor login;
                  end if;
                end $$""");
        // As on servers where only pg_monitor may read it (per database: only these two are affected).
        for (String db : List.of("unknown_instance_a", "unknown_instance_b")) {
            pg.execute(db, "revoke execute on function pg_control_system() from public");
        }
        var backend = new MetricDefinition("backend", "the session's own backend", Map.of(10,
                "select pg_backend_pid() as pid, current_database() as db"), List.of("*"), true, NodeStatus.ANY, null,
                null, null);
        var kit = new ReaperTestKit();
        var timers = List.of(new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.100Z")),
                new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.100Z")));
        var reapers = List.of(0, 1).stream().map(i -> new SourceReaper(ReaperTestKit.config(
                source("src_" + "ab".charAt(i), "postgresql://no_monitor@" + pg.host() + ":" + pg.port()
                        + "/unknown_instance_" + "ab".charAt(i), Map.of("backend", 10)), List.of(backend)),
                kit.context, timers.get(i))).toList();
        reapers.forEach(SourceReaper::start);
        try {
            // Tick by tick, both sources at the same grid points (within the cache's freshness).
            for (int sleeps = 1; sleeps <= 3; sleeps++) {
                for (ManualTickTimer timer : timers) {
                    timer.advanceTo(timer.awaitSleepRequests(sleeps));
                }
            }
            for (ManualTickTimer timer : timers) {
                timer.awaitSleepRequests(4);
            }
            assertThat(reapers.get(0).status().systemIdentifier()).isNull();
            // Its ticks complete: the status records the success.
            assertThat(reapers.get(1).status().metrics()).singleElement()
                    .satisfies(m -> assertThat(m.lastSuccess()).isNotNull());
        } finally {
            for (SourceReaper reaper : reapers) {
                reaper.stop();
                assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
            }
        }
        for (String name : List.of("a", "b")) {
            List<Measurement> own = kit.publisher.of("src_" + name, "backend");
            assertThat(own).isNotEmpty();
            Set<Object> databases = own.stream().map(m -> m.rows().getFirst().values().get("db"))
                    .collect(Collectors.toSet());
            assertThat(databases).containsExactly("unknown_instance_" + name);
        }
    }
}
