package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.nativemetric.PlanningLogin;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.support.wire.ResultBytesBound;
import io.pgharvest.testsupport.TestPostgres;
import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database owner's function that raises notices in a loop, only when pgharvest's role runs it,
 * floods the session on a tick (a metric calls it) and while a top statement is planned (an
 * immutable function is folded at plan time): each round trip lets {@link ResultBytesBound#NOTICES_KEPT}
 * notices through and drops the rest unread, so pgharvest allocates a few MB while 80 MB of notices
 * arrive, the results are right, the session carries on, and every dropped notice is counted (on
 * the session, for its status, and on the opener, for the meter). Before the bound pgjdbc parsed
 * every notice into an SQLWarning chained on the statement: the collector ran out of memory.
 */
class NoticeFloodTest {

    private static final String DB = "notice_flood_db";
    private static final String ROLE = "notice_flood_reader";
    /** The planning role plans are made as (its own login): the owner's function floods it too. */
    private static final String PLANNER = "notice_flood_planner";
    /** 20,000 notices of 4 KB: 80 MB in one round trip. */
    private static final int NOTICES = 20_000;
    private static final long ALLOCATION_BOUND = 16L * 1024 * 1024;
    private static final TestPostgres server = TestPostgres.shared();

    @BeforeAll
    static void createTheOwnersFunction() throws Exception {
        server.createDatabase(DB);
        server.execute("postgres", "do $$ begin create role " + ROLE + " login in role pg_monitor;"
                + " exception when duplicate_object then null; end $$");
        server.execute("postgres", "do $$ begin create role " + PLANNER + " login;"
                + " exception when duplicate_object then null; end $$");
        server.execute(DB, """
                create or replace function public.noisy(n int, size int) returns int language plpgsql immutable as $f$
                begin
                    if current_user in ('%s', '%s') then
                        for i in 1 .. n loop
                            raise notice '%%', repeat('n', size);
                        end loop;
                    end if;
                    return n;
                end $f$""".formatted(ROLE, PLANNER));
        // A metric's function runs on every tick (an immutable one with constant arguments is folded
        // into the server's cached plan and runs once).
        server.execute(DB, "create or replace function public.noisy_each_time(n int, size int) returns int"
                + " language sql stable as 'select public.noisy(n, size) + 0 * random()::int'");
        server.execute(DB, "create table if not exists public.items (id int primary key, name text)");
        server.execute(DB, "grant select on public.items to " + ROLE + ", " + PLANNER);
    }

    @Test
    void aTickWhoseMetricRaisesEightyMegabytesOfNoticesAllocatesAFewAndIsRight() throws Exception {
        var opener = opener();
        try (PostgresSession session = open(opener)) {
            MetricQuery flooded = new MetricQuery("flooded", "select public.noisy_each_time(" + NOTICES + ", 4000) as n",
                    Duration.ofSeconds(30));
            MetricQuery small = new MetricQuery("small", "select 1 as a", Duration.ofSeconds(30));
            for (int tick = 1; tick <= 2; tick++) {
                long before = allocatedByThisThread();
                List<FetchedRows> results = session.run(List.of(flooded, small));
                long allocated = allocatedByThisThread() - before;

                assertThat(results.get(0).rows().getFirst().values()).containsEntry("n", (long) NOTICES);
                assertThat(results.get(1).rows().getFirst().values()).containsEntry("a", 1L);
                assertThat(allocated).as("bytes allocated while 80 MB of notices arrived")
                        .isLessThan(ALLOCATION_BOUND);
                long dropped = (long) tick * (NOTICES - ResultBytesBound.NOTICES_KEPT);
                assertThat(session.droppedNotices()).isEqualTo(dropped);
                assertThat(opener.droppedNotices()).isEqualTo(dropped);
            }
            // One notice larger than a notice may be is dropped whatever the count.
            long before = session.droppedNotices();
            assertThat(session.read("select public.noisy_each_time(3, 4000000) as n").getFirst()).containsEntry("n", 3);
            assertThat(session.droppedNotices() - before).isEqualTo(3);
        }
    }

    @Test
    void planningATopStatementThatFoldsTheOwnersFunctionDropsTheFloodAndGivesThePlan() throws Exception {
        var opener = opener();
        try (PostgresSession session = open(opener);
                var planning = session.openPlanning(new PlanningLogin(PLANNER, null))) {
            long before = allocatedByThisThread();
            String plan = planning.genericPlan("select name from public.items where id = public.noisy(" + NOTICES
                    + ", 4000) and name = $1", Duration.ofSeconds(30));
            long allocated = allocatedByThisThread() - before;

            assertThat(plan).contains("items");
            assertThat(allocated).as("bytes allocated while 80 MB of notices arrived").isLessThan(ALLOCATION_BOUND);
            // The planning role's own session is opened like every session: the same bound, counted by the opener.
            assertThat(opener.droppedNotices()).isGreaterThanOrEqualTo(NOTICES - ResultBytesBound.NOTICES_KEPT);
            assertThat(session.read("select 2 as b").getFirst()).containsEntry("b", 2);
        }
    }

    private static SessionOpener opener() {
        return new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(1), Duration.ofMinutes(2), true, false));
    }

    private static PostgresSession open(SessionOpener opener) throws SQLException {
        return PostgresSession.open(opener, ConnectionString.parse("postgresql://" + ROLE + "@" + server.host() + ":"
                + server.port() + "/" + DB), Instant.now());
    }

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
