package io.pgharvest.serverlog.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.serverlog.entry.LogEntry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Log entries as PostgreSQL 14 to 18 write them, sorted into events with typed columns and no literals. */
class EntryClassifierTest {

    private static final LogTexts REDACTED = new LogTexts(false);
    private final EntryClassifier classifier = new EntryClassifier();

    @Test
    void autovacuumOfVersion14AndOfVersion17AreRead() {
        LogEvent v14 = only(log(null, """
                automatic vacuum of table "shop.public.orders": index scans: 1
                pages: 0 removed, 45 remain, 0 skipped due to pins, 0 skipped frozen
                tuples: 5000 removed, 5000 remain, 7 are dead but not yet removable, oldest xmin: 750
                buffer usage: 143 hits, 2 misses, 92 dirtied
                avg read rate: 0.000 MB/s, avg write rate: 84.000 MB/s
                system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 1.25 s
                WAL usage: 137 records, 1 full page images, 400000 bytes"""));
        assertThat(v14.category()).isEqualTo(LogCategory.AUTOVACUUM);
        assertThat(v14.row().tags()).containsEntry("table", "public.orders");
        assertThat(v14.row().values()).containsEntry("dbname", "shop").containsEntry("kind", "vacuum")
                .containsEntry("tuples_removed", 5000L).containsEntry("tuples_remaining", 5000L)
                .containsEntry("tuples_dead_not_removable", 7L).containsEntry("xmin_horizon", "750")
                .containsEntry("buffer_misses", 2L).containsEntry("wal_bytes", 400000L)
                .containsEntry("elapsed_s", 1.25).containsEntry("index_scans", 1L);

        LogEvent v17 = only(log(null, """
                automatic aggressive vacuum to prevent wraparound of table "shop.public.orders": index scans: 0
                pages: 3 removed, 42 remain, 45 scanned (100.00% of total)
                tuples: 10 removed, 20 remain, 0 are dead but not yet removable
                removable cutoff: 752, which was 0 XIDs old when operation ended
                buffer usage: 143 hits, 0 reads, 92 dirtied
                WAL usage: 137 records, 1 full page images, 400000 bytes, 0 buffers full
                system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s"""));
        assertThat(v17.row().values()).containsEntry("aggressive", true).containsEntry("wraparound", true)
                .containsEntry("pages_removed", 3L).containsEntry("xmin_horizon", "752")
                .containsEntry("buffer_misses", 0L);
    }

    @Test
    void aTableNameWithQuotesDotsAndControlCharactersIsReadWhole() {
        String name = "v<img src=x>\u001b[31m\"q\\.b";
        LogEvent vacuum = only(log(null, "automatic vacuum of table \"shop.public." + name + "\": index scans: 0\n"
                + "tuples: 3 removed, 1 remain, 0 are dead but not yet removable"));
        assertThat(vacuum.row().tags()).containsEntry("table", "public." + name);
        assertThat(vacuum.row().values()).containsEntry("dbname", "shop").containsEntry("tuples_removed", 3L);

        LogEvent analyze = only(new LogEntry(Instant.EPOCH, "LOG", null, "automatic analyze of table \"my.shop.s.\"t\"\"\n"
                + "system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s", null, null, null, null, null,
                "my.shop", "alice", 1, null, null, "autovacuum worker", null, false));
        assertThat(analyze.row().tags()).as("the database's own dot").containsEntry("table", "s.\"t\"");
        assertThat(analyze.row().values()).containsEntry("dbname", "my.shop").containsEntry("kind", "analyze");
    }

    @Test
    void aCheckpointCarriesTheReasonOfItsStart() {
        assertThat(classifier.classify(log(null, "checkpoint starting: immediate force wait"), REDACTED)).isEmpty();
        LogEvent done = only(log(null, "checkpoint complete: wrote 4 buffers (0.0%); 0 WAL file(s) added, 1 removed,"
                + " 2 recycled; write=0.002 s, sync=0.001 s, total=0.005 s; sync files=3, longest=0.001 s,"
                + " average=0.001 s; distance=7 kB, estimate=9 kB; lsn=0/1549F10, redo lsn=0/1549EB8"));
        assertThat(done.row().values()).containsEntry("reason", "immediate force wait")
                .containsEntry("buffers_written", 4L).containsEntry("wal_files_removed", 1L)
                .containsEntry("total_s", 0.005).containsEntry("distance_kb", 7L).containsEntry("estimate_kb", 9L);
    }

    @Test
    void aDeadlockNamesBothProcessesAndTheQueryIdTheOtherLoggedWhileWaiting() {
        LogEntry otherWaits = entry("LOG", null, "process 200 still waiting for ShareLock on transaction 900 after"
                + " 1000.5 ms", "Process holding the lock: 100. Wait queue: 200.", "update t set v = 'secret' where id = 2",
                200, 222L);
        LogEvent wait = only(otherWaits);
        assertThat(wait.category()).isEqualTo(LogCategory.LOCK_WAITS);
        assertThat(wait.row().values()).containsEntry("state", "waiting").containsEntry("lock_mode", "ShareLock")
                .containsEntry("lock_object", "transaction 900").containsEntry("holder_pids", "100")
                .containsEntry("wait_ms", 1000.5).containsEntry("queryid", "222")
                .containsEntry("query", "update t set v = $1 where id = $2");

        List<LogEvent> events = classifier.classify(entry("ERROR", "40P01", "deadlock detected", """
                Process 100 waits for ShareLock on transaction 901; blocked by process 200.
                Process 200 waits for ShareLock on transaction 900; blocked by process 100.
                Process 100: update t set v = 'a@example.com' where id = 1
                Process 200: update t set v = 'secret' where id = 2""", "update t set v = 'a@example.com' where id = 1",
                100, 111L), REDACTED);

        assertThat(events).extracting(LogEvent::category).containsExactly(LogCategory.DEADLOCKS, LogCategory.ERRORS);
        Map<String, Object> deadlock = events.getFirst().row().values();
        assertThat(deadlock).containsEntry("pid", "100").containsEntry("queryid", "111")
                .containsEntry("other_pids", "200").containsEntry("other_queryids", "222")
                .containsEntry("other_query", "update t set v = $1 where id = $2")
                .containsEntry("query", "update t set v = $1 where id = $2");
        assertThat(events.get(1).row().values()).containsEntry("sqlstate", "40P01").containsEntry("detail", null);
        assertThat(events.get(1).row().tags()).containsEntry("class", "40");
    }

    @Test
    void temporaryFilesSlowStatementsAndPlansAreReadWithTheirQueryId() {
        LogEvent temp = only(entry("LOG", null, "temporary file: path \"base/pgsql_tmp/pgsql_tmp77.0\", size 1400000",
                null, "select * from t where name = 'x' order by 1", 77, 5L));
        assertThat(temp.row().values()).containsEntry("size_bytes", 1400000L).containsEntry("queryid", "5")
                .containsEntry("file_name", "pgsql_tmp77.0").containsEntry("query", "select * from t where name = $1 order by $2");

        LogEvent slow = only(entry("LOG", null, "duration: 1500.25 ms  execute S_1: select * from t where id = $1",
                "parameters: $1 = '42'", null, 77, 6L));
        assertThat(slow.category()).isEqualTo(LogCategory.SLOW_STATEMENTS);
        assertThat(slow.row().values()).containsEntry("duration_ms", 1500.25).containsEntry("step", "execute")
                .containsEntry("query", "select * from t where id = $1").doesNotContainValue("parameters: $1 = '42'");

        LogEvent plan = only(entry("LOG", null, """
                duration: 12.5 ms  plan:
                {
                  "Query Text": "select * from t where name = 'x'",
                  "Plan": {"Node Type": "Seq Scan", "Relation Name": "t", "Alias": "t", "Startup Cost": 0.0,
                    "Total Cost": 1.0, "Plan Rows": 3, "Plan Width": 4, "Actual Startup Time": 0.01,
                    "Actual Total Time": 0.5, "Actual Rows": 7, "Actual Loops": 1, "Filter": "(name = 'x'::text)",
                    "Rows Removed by Filter": 2}
                }""", null, null, 77, 8L));
        assertThat(plan.category()).isEqualTo(LogCategory.PLANS);
        assertThat(plan.row().values()).containsEntry("queryid", "8").containsEntry("format", "json")
                .containsEntry("estimated_rows", 3.0).containsEntry("actual_rows", 7.0)
                .containsEntry("actual_total_ms", 0.5);
        assertThat((String) plan.row().values().get("plan")).contains("Seq Scan").doesNotContain("'x'");

        LogEvent samePlanOtherRun = only(entry("LOG", null, """
                duration: 99 ms  plan:
                {"Query Text": "select * from t where name = 'y'", "Plan": {"Node Type": "Seq Scan",
                  "Relation Name": "t", "Alias": "t", "Startup Cost": 0.0, "Total Cost": 9.0, "Plan Rows": 30,
                  "Plan Width": 4, "Actual Startup Time": 1.0, "Actual Total Time": 90.5, "Actual Rows": 70,
                  "Actual Loops": 1, "Filter": "(name = 'y'::text)", "Rows Removed by Filter": 20}}""",
                null, null, 77, 8L));
        assertThat(samePlanOtherRun.row().values().get("plan_hash")).isEqualTo(plan.row().values().get("plan_hash"));
    }

    @Test
    void aTextPlanKeepsItsActualsAndLosesItsConstants() {
        LogEvent plan = only(entry("LOG", null, """
                duration: 3.0 ms  plan:
                Query Text: select * from t where name = 'x'
                Seq Scan on t  (cost=0.00..35.50 rows=3 width=36) (actual time=0.010..0.020 rows=7 loops=1)
                  Filter: (name = 'x'::text)
                  Rows Removed by Filter: 2""", null, null, 77, 8L));
        assertThat(plan.row().values()).containsEntry("format", "text").containsEntry("actual_rows", 7.0)
                .containsEntry("estimated_rows", 3.0);
        assertThat((String) plan.row().values().get("plan")).contains("Seq Scan on t").contains("rows=7")
                .doesNotContain("'x'");
    }

    @Test
    void refusedConnectionsAreCountedByCauseAndClientWithoutDetail() {
        List<LogEvent> events = classifier.classify(new LogEntry(Instant.EPOCH, "FATAL", "28P01",
                "password authentication failed for user \"carol\"", "Connection matched file \"pg_hba.conf\" line 3",
                null, null, null, null, "shop", "carol", 9, "10.1.2.3", null, "client backend", null, false), REDACTED);

        assertThat(events).extracting(LogEvent::category)
                .containsExactly(LogCategory.CONNECTION_FAILURES, LogCategory.ERRORS);
        assertThat(events.getFirst().row().tags()).containsEntry("cause", "invalid_password");
        assertThat(events.getFirst().row().values()).containsEntry("client_addr", "10.1.2.3")
                .containsEntry("user_name", "carol").containsEntry("count", 1L);
        assertThat(events.get(1).row().values().get("message"))
                .isEqualTo("password authentication failed for user \"…\"");
    }

    @Test
    void messagesLoseEveryQuotedOrNumericPartUnlessTheSourceKeepsLiterals() {
        String message = "invalid input syntax for type integer: \"4111-1111-1111-1111\" at 'x''y' near E'\\'z' 42";
        assertThat(REDACTED.message(message)).doesNotContain("4111").doesNotContain("x''y").doesNotContain("z")
                .doesNotContain("42").startsWith("invalid input syntax for type integer: \"…\"");
        assertThat(REDACTED.message("it's done")).isEqualTo("it…");
        assertThat(new LogTexts(true).message(message)).isEqualTo(message);
        assertThat(new LogTexts(true).detail("Key (email)=(a@example.com) already exists."))
                .isEqualTo("Key (email)=(a@example.com) already exists.");
        assertThat(REDACTED.detail("Key (email)=(a@example.com) already exists.")).isNull();
    }

    /**
     * Out of memory and out of disk are not provoked on the test servers (no memory limit, no small
     * file system one can count on in CI): these are the lines in the words of PostgreSQL's memory
     * context and file code (out of memory with its request size; a write failing with ENOSPC, which
     * the server reports as 53100), not captured from a server.
     */
    @Test
    void outOfMemoryAndOutOfDiskAreServerEventsAndErrorsOfClass53() {
        List<LogEvent> memory = classifier.classify(entry("ERROR", "53200", "out of memory",
                "Failed on request of size 8388608 in memory context \"ExecutorState\".", "select 'secret'", 77, 9L),
                REDACTED);
        assertThat(memory).extracting(LogEvent::category).containsExactly(LogCategory.SERVER_EVENTS, LogCategory.ERRORS);
        assertThat(memory.getFirst().row().tags()).containsEntry("kind", "out_of_memory");
        assertThat(memory.getFirst().row().values()).containsEntry("sqlstate", "53200").containsEntry("queryid", "9");

        List<LogEvent> disk = classifier.classify(entry("ERROR", "53100",
                "could not write to file \"pg_tblspc/16390/PG_18_202506291/pgsql_tmp/pgsql_tmp4242.0\": No space left on device",
                null, "select * from t order by 1", 4242, 10L), REDACTED);
        assertThat(disk).extracting(LogEvent::category).containsExactly(LogCategory.SERVER_EVENTS, LogCategory.ERRORS);
        assertThat(disk.getFirst().row().tags()).containsEntry("kind", "out_of_disk");
        assertThat(disk.getFirst().row().values().get("message")).asString().doesNotContain("pgsql_tmp4242")
                .endsWith("No space left on device");
        assertThat(disk.get(1).row().tags()).containsEntry("class", "53");

        LogEvent walFull = classifier.classify(entry("PANIC", null,
                "could not write to file \"pg_wal/xlogtemp.99\": No space left on device", null, null, 99, null),
                REDACTED).getFirst();
        assertThat(walFull.row().tags()).as("a stderr prefix without %e: by the words").containsEntry("kind", "out_of_disk");
    }

    @Test
    void crashRecoveryAndStandbyLinesAreServerEventsWithTheirLsnAndTimeline() {
        assertThat(only(log(null, "server process (PID 4711) was terminated by signal 9: Killed")).row().tags())
                .containsEntry("kind", "backend_crashed");
        assertThat(classifier.classify(log(null, "background worker \"logical replication launcher\" (PID 5) exited"
                + " with exit code 0"), REDACTED)).as("a clean exit").isEmpty();
        LogEvent redo = only(log(null, "redo done at 0/1A2B3C8 system usage: CPU: user: 0.00 s, system: 0.01 s,"
                + " elapsed: 0.25 s"));
        assertThat(redo.row().tags()).containsEntry("kind", "redo_done");
        assertThat(redo.row().values()).containsEntry("lsn", "0/1A2B3C8").containsEntry("elapsed_s", 0.25);
        LogEvent streaming = only(log(null, "started streaming WAL from primary at 0/3000000 on timeline 1"));
        assertThat(streaming.row().tags()).containsEntry("kind", "streaming_started");
        assertThat(streaming.row().values()).containsEntry("lsn", "0/3000000").containsEntry("timeline", "1");
        assertThat(only(log(null, "selected new timeline ID: 2")).row().values()).containsEntry("timeline", "2");
        LogEvent lost = classifier.classify(entry("FATAL", "XX000", "could not receive data from WAL stream: server closed"
                + " the connection unexpectedly", null, null, 12, null), REDACTED).getFirst();
        assertThat(lost.row().tags()).containsEntry("kind", "streaming_ended");
    }

    private LogEvent only(LogEntry entry) {
        List<LogEvent> events = classifier.classify(entry, REDACTED);
        assertThat(events).hasSize(1);
        return events.getFirst();
    }

    private static LogEntry log(String sqlState, String message) {
        return entry("LOG", sqlState, message, null, null, 1, null);
    }

    private static LogEntry entry(String severity, String sqlState, String message, String detail, String statement,
            Integer pid, Long queryId) {
        return new LogEntry(Instant.EPOCH, severity, sqlState, message, detail, null, null, statement, null, "shop",
                "alice", pid, null, null, "client backend", queryId, false);
    }
}
