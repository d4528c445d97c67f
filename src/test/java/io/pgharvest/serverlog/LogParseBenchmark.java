package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.serverlog.entry.CsvLogParser;
import io.pgharvest.serverlog.entry.JsonLogParser;
import io.pgharvest.serverlog.entry.LinePrefix;
import io.pgharvest.serverlog.entry.LogEntryParser;
import io.pgharvest.serverlog.entry.StderrLogParser;
import io.pgharvest.serverlog.event.EntryClassifier;
import io.pgharvest.serverlog.event.LogTexts;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Parse throughput of each log format on one core: a log of the usual mix (statements with their
 * duration, errors with a STATEMENT, autovacuum reports, checkpoints, lock waits, temp files) in
 * csvlog, jsonlog and stderr, read chunk by chunk as {@link LogFollower} reads it, parsed into
 * entries and sorted into events with texts redacted, timed by this thread's CPU time. Prints MB/s
 * per format, parse alone and parse + classify. Not a timed test: it asserts only that every entry
 * was read.
 *
 * <pre>
 * bench/log-parse-bench.sh   (./mvnw -B test -Dtest=LogParseBenchmark -Dtest.excludedGroups= )
 * </pre>
 */
@Tag("benchmark")
class LogParseBenchmark {

    private static final int ENTRIES = Integer.getInteger("pgharvest.bench.log-entries", 200_000);
    private static final int ROUNDS = 5;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String PREFIX = "%m [%p] %q%u@%d %e %Q ";

    @Test
    void printsTheParseThroughputOfEachFormat() {
        for (String format : List.of("csvlog", "jsonlog", "stderr")) {
            byte[] log = log(format);
            LogEntryParser parser = switch (format) {
                case "csvlog" -> new CsvLogParser();
                case "jsonlog" -> new JsonLogParser();
                default -> new StderrLogParser(LinePrefix.of(PREFIX));
            };
            double parseOnly = best(log, parser, false);
            double classified = best(log, parser, true);
            System.out.printf("log parse %-8s %6.1f MB  parse %7.1f MB/s  parse+classify+redact %7.1f MB/s%n", format,
                    log.length / 1e6, log.length / 1e6 / parseOnly, log.length / 1e6 / classified);
        }
    }

    private static double best(byte[] log, LogEntryParser parser, boolean classify) {
        double best = Double.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            var classifier = new EntryClassifier();
            var texts = new LogTexts(false);
            long[] entries = {0};
            long start = THREADS.getCurrentThreadCpuTime();
            int offset = 0;
            while (offset < log.length) {
                byte[] chunk = Arrays.copyOfRange(log, offset, Math.min(log.length, offset + LogFollower.CHUNK));
                boolean atRest = offset + chunk.length >= log.length;
                int consumed = parser.parse(chunk, chunk.length, atRest, entry -> {
                    entries[0]++;
                    if (classify) {
                        classifier.classify(entry, texts);
                    }
                });
                offset += consumed;
            }
            best = Math.min(best, (THREADS.getCurrentThreadCpuTime() - start) / 1e9);
            assertThat(entries[0]).isEqualTo(ENTRIES);
        }
        return best;
    }

    /** {@value #ENTRIES} entries of the usual mix in {@code format}. */
    private static byte[] log(String format) {
        var out = new ByteArrayOutputStream();
        for (int i = 0; i < ENTRIES; i++) {
            Entry entry = sample(i);
            String text = switch (format) {
                case "csvlog" -> csv(entry, i);
                case "jsonlog" -> json(entry, i);
                default -> stderr(entry, i);
            };
            out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private record Entry(String severity, String sqlState, String message, String statement) {
    }

    private static Entry sample(int i) {
        return switch (i % 10) {
            case 0, 1, 2, 3 -> new Entry("LOG", "00000", "duration: " + (1000 + i % 97) + ".123 ms  statement: select o.id,"
                    + " o.total from orders o join customers c on c.id = o.customer_id where c.email = 'user" + i
                    + "@example.com' and o.created > now() - interval '1 day'", null);
            case 4, 5 -> new Entry("ERROR", "23505", "duplicate key value violates unique constraint \"orders_pkey\"",
                    "insert into orders (id, total) values (" + i + ", 12.50)");
            case 6 -> new Entry("LOG", "00000", """
                    automatic vacuum of table "shop.public.orders": index scans: 1
                    pages: 0 removed, 4500 remain, 4500 scanned (100.00% of total)
                    tuples: 5000 removed, 500000 remain, 0 are dead but not yet removable
                    removable cutoff: 75200, which was 3 XIDs old when operation ended
                    buffer usage: 14300 hits, 20 reads, 920 dirtied
                    WAL usage: 13700 records, 100 full page images, 4000000 bytes
                    system usage: CPU: user: 0.10 s, system: 0.02 s, elapsed: 1.25 s""", null);
            case 7 -> new Entry("LOG", "00000", "process " + i + " still waiting for ShareLock on transaction 9"
                    + i + " after 1000.123 ms", "update orders set total = total + 1 where id = " + i);
            case 8 -> new Entry("LOG", "00000", "temporary file: path \"base/pgsql_tmp/pgsql_tmp" + i
                    + ".0\", size 14000000", "select * from orders order by total desc");
            default -> new Entry("LOG", "00000", "checkpoint complete: wrote 4000 buffers (2.0%); 0 WAL file(s) added,"
                    + " 1 removed, 2 recycled; write=26.9 s, sync=0.001 s, total=27.0 s; sync files=30,"
                    + " longest=0.001 s, average=0.001 s; distance=70000 kB, estimate=90000 kB", null);
        };
    }

    private static String csv(Entry e, int i) {
        return "2026-12-02 05:37:01.123 UTC,\"app\",\"shop\"," + (1000 + i % 50) + ",\"10.0.0.7:51234\",6750f1a5.1092,"
                + i + ",\"SELECT\",2026-12-02 05:36:00 UTC,3/7,0," + e.severity() + "," + e.sqlState() + ","
                + quote(e.message()) + ",,,,,," + (e.statement() == null ? "" : quote(e.statement()))
                + ",,,\"app\",\"client backend\",," + (i * 7919L) + "\n";
    }

    private static String quote(String text) {
        return "\"" + text.replace("\"", "\"\"") + "\"";
    }

    private static String json(Entry e, int i) {
        return "{\"timestamp\":\"2026-12-02 05:37:01.123 UTC\",\"user\":\"app\",\"dbname\":\"shop\",\"pid\":"
                + (1000 + i % 50) + ",\"remote_host\":\"10.0.0.7\",\"remote_port\":51234,\"session_id\":\"6750f1a5.1092\","
                + "\"line_num\":" + i + ",\"ps\":\"SELECT\",\"error_severity\":\"" + e.severity() + "\",\"state_code\":\""
                + e.sqlState() + "\",\"message\":" + jsonString(e.message())
                + (e.statement() == null ? "" : ",\"statement\":" + jsonString(e.statement()))
                + ",\"application_name\":\"app\",\"backend_type\":\"client backend\",\"query_id\":" + (i * 7919L) + "}\n";
    }

    private static String jsonString(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private static String stderr(Entry e, int i) {
        String prefix = "2026-12-02 05:37:01.123 UTC [" + (1000 + i % 50) + "] app@shop " + e.sqlState() + " "
                + (i * 7919L) + " ";
        String text = prefix + e.severity() + ":  " + e.message().replace("\n", "\n\t") + "\n";
        return e.statement() == null ? text : text + prefix + "STATEMENT:  " + e.statement() + "\n";
    }
}
