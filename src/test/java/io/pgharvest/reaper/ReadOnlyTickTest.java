package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The second wall of the read-only boundary: SQL that passes the definition check but calls
 * functions installed on the server (which the check cannot see into) still cannot write, and
 * whatever it changes in the session is gone by the next tick. The source connects as a
 * superuser, the worst case.
 */
class ReadOnlyTickTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void functionsThatWriteOrChangeTheSessionCannotOutliveTheirTick() throws Exception {
        pg.createDatabase("readonly_tick_db");
        pg.execute("readonly_tick_db", """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'ro_tick_plain') then
                    create role ro_tick_plain;
                  end if;
                end $$;
                create table t (id int);
                create function become_plain() returns text language sql
                  as $f$ select set_config('role', 'ro_tick_plain', false) $f$;
                create function write_row() returns int language plpgsql
                  as $f$ begin insert into public.t values (99); return 1; end $f$;
                create function turn_off_read_only() returns text language sql
                  as $f$ select set_config('transaction_read_only', 'off', false) $f$;
                create function leave_read_only_default() returns text language sql
                  as $f$ select set_config('default_transaction_read_only', 'off', false) $f$;
                """);
        var metrics = List.of(
                metric("become_plain", "select public.become_plain() as r"),
                metric("leave_default", "select public.leave_read_only_default() as r"),
                metric("who", "select current_user::text as who, current_setting('transaction_read_only') as ro,"
                        + " current_setting('default_transaction_read_only') as default_ro"),
                metric("write_row", "select public.write_row() as w"),
                metric("read_write", "select public.turn_off_read_only() as r"));
        // become_plain and leave_default every 20 s, who every 10 s: on every other tick who runs
        // without them, and must find the session as it was opened.
        var selection = Map.of("become_plain", 20, "leave_default", 20, "who", 10, "write_row", 10, "read_write", 10);
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.300Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("ro", pg.connStr("readonly_tick_db"), selection),
                metrics), kit.context, timer);
        reaper.start();
        int ticks = 6;
        for (int sleeps = 1; sleeps <= ticks; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
        }
        timer.awaitSleepRequests(ticks + 1);
        var status = reaper.status();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        Set<Instant> roleChangeTicks = kit.publisher.of("ro", "become_plain").stream().map(Measurement::time)
                .collect(Collectors.toSet());
        List<Measurement> quietTicks = kit.publisher.of("ro", "who").stream()
                .filter(m -> !roleChangeTicks.contains(m.time())).toList();
        assertThat(roleChangeTicks).isNotEmpty();
        assertThat(quietTicks).hasSizeGreaterThanOrEqualTo(2).allSatisfy(m -> assertThat(m.rows().getFirst().values())
                .containsEntry("who", TestPostgres.SUPERUSER).containsEntry("ro", "on").containsEntry("default_ro", "on"));
        assertThat(kit.publisher.of("ro", "write_row")).isEmpty();
        assertThat(kit.publisher.of("ro", "read_write")).isEmpty();
        var byName = status.metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
        assertThat(byName.get("write_row").lastError()).contains("read-only transaction");
        assertThat(byName.get("read_write").lastError()).contains("25001");
        try (Connection c = pg.connect("readonly_tick_db"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from t")) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
        }
    }

    @Test
    void sqlStoredBeforeTheRuleIsRefusedByTheEngineBeforeItIsSent() throws Exception {
        pg.createDatabase("readonly_stored_db");
        var metrics = List.of(metric("old_copy", "copy (select 1) to program 'touch /tmp/pgharvest-pwned'"),
                metric("old_two", "commit; begin transaction read write; select 1 as a"),
                metric("fine", "select 1 as a"));
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.300Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("stored", pg.connStr("readonly_stored_db"),
                Map.of("old_copy", 10, "old_two", 10, "fine", 10)), metrics), kit.context, timer);
        var status = ReaperTestKit.runFirstTick(reaper, timer);

        assertThat(kit.publisher.of("stored", "fine")).hasSize(1);
        var byName = status.metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
        assertThat(byName.get("old_copy").lastError()).contains("refused").contains("not COPY");
        assertThat(byName.get("old_two").lastError()).contains("refused").contains("exactly one statement");
        assertThat(java.nio.file.Path.of("/tmp/pgharvest-pwned")).doesNotExist();
    }
}
