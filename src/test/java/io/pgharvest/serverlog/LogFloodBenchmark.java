package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.LogPositions.LogPosition;
import io.pgharvest.testsupport.TestPostgres;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A log flood: the server writes {@value #FLOOD_MB} MB of log in {@value #FLOOD_SECONDS} s (RAISE LOG
 * lines of 1 KB from DO blocks, plus one ERROR a second as a marker), while one thread ticks every
 * {@link #INTERVAL} as a source's reaper does: a fast SQL metric every tick and, every
 * {@value #LOG_EVERY}th, before it on the same session, the log_* metrics (one reading of at most the
 * 8 MiB budget, through SQL as for a remote server). Asserts that no tick of the fast metric was
 * missed, that no collection read more than the budget (and the backlog was read in budget-sized
 * parts), that the reading caught up after the flood and counted every marker once. Prints the bytes per collection, the collector thread's CPU per MB and the monitoring
 * backend's CPU per MB (from /proc: the server runs here).
 *
 * <pre>
 * bench/log-flood-bench.sh   (-Dpgharvest.bench.log-format=csvlog|jsonlog|stderr)
 * </pre>
 */
@Tag("benchmark")
class LogFloodBenchmark {

    private static final int FLOOD_MB = Integer.getInteger("pgharvest.bench.flood-mb", 200);
    private static final int FLOOD_SECONDS = Integer.getInteger("pgharvest.bench.flood-seconds", 60);
    private static final String FORMAT = System.getProperty("pgharvest.bench.log-format", "csvlog");
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    /** The log_* metrics every fifth tick: 5 s of flood is 16 MB, twice the budget, so the budget bites. */
    private static final int LOG_EVERY = 5;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** 256 lines of 1,024 characters per statement. */
    private static final String RAISE = "do $$ begin for i in 1..256 loop raise log 'flood %', repeat(md5(i::text), 32);"
            + " end loop; end $$";

    @Test
    void aFloodIsReadWithinTheBudgetWithoutALateTick() throws Exception {
        try (TestPostgres pg = TestPostgres.start(Map.of("logging_collector", "on", "log_destination", FORMAT,
                "log_rotation_age", "0", "log_rotation_size", "0", "lc_messages", "C",
                "log_line_prefix", LogInsightsTest.PREFIX_A));
                LogWorkload workload = new LogWorkload(pg, "flood", Duration.ofSeconds(1))) {
            pg.createDatabase("flood");
            Connection session = workload.connect();
            long backend = LogWorkload.pid(session);
            var positions = new RecordingPositions();
            LogReading reading = LogReading.remote(pg, positions, LogInsightsTail.READ_BUDGET, session);
            reading.tick();
            long startOffset = positions.last.offset();

            var markers = new AtomicLong();
            CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> flood(workload, pg, markers));
            var ticks = new ArrayList<Long>();
            var logTicks = new ArrayList<Long>();
            int missed = 0;
            long logCpuMax = 0;
            long cpuBefore = THREADS.getCurrentThreadCpuTime();
            long serverBefore = cpuTicks(backend);
            long started = System.nanoTime();
            int behind = 0;
            for (long tick = 1; behind < 2 && tick < 4L * FLOOD_SECONDS; tick++) {
                long due = started + tick * INTERVAL.toNanos();
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } else if (-wait >= INTERVAL.toNanos()) {
                    missed++; // the previous tick ran past this one's whole slot
                }
                long begun = System.nanoTime();
                if (tick % LOG_EVERY == 0) {
                    long cpuAtStart = THREADS.getCurrentThreadCpuTime();
                    reading.tick();
                    logTicks.add(System.nanoTime() - begun);
                    logCpuMax = Math.max(logCpuMax, THREADS.getCurrentThreadCpuTime() - cpuAtStart);
                    long size = fileSize(pg, positions.last.file());
                    behind = !flood.isDone() || positions.last.offset() < size ? 0 : behind + 1;
                }
                LogWorkload.execute(session, "select count(*) from pg_stat_activity"); // the fast metric
                ticks.add(System.nanoTime() - begun);
            }
            double cpu = (THREADS.getCurrentThreadCpuTime() - cpuBefore) / 1e9;
            double serverCpu = (cpuTicks(backend) - serverBefore) / 100.0;
            flood.get();
            long read = positions.last.offset() - startOffset;
            long errors = reading.rows(LogCategory.ERRORS).stream()
                    .filter(row -> "22012".equals(row.values().get("sqlstate")))
                    .mapToLong(row -> (Long) row.values().get("count")).sum();
            long slowest = ticks.stream().mapToLong(Long::longValue).max().orElseThrow();
            double logMedian = logTicks.stream().sorted().skip(logTicks.size() / 2).findFirst().orElseThrow() / 1e6;
            System.out.printf("log flood %s: %.1f MB read by %d log collections (every %d of %d ticks of %s),"
                    + " largest read %.2f MiB, log collection median %.0f ms (CPU at most %.0f ms), slowest tick %d ms,"
                    + " %d ticks missed,"
                    + " collector %.3f s CPU (%.1f ms/MB), monitoring backend %.2f s CPU (%.1f ms/MB), load %s%n",
                    FORMAT, read / 1e6, logTicks.size(), LOG_EVERY, ticks.size(), INTERVAL,
                    positions.largest / 1048576.0, logMedian, logCpuMax / 1e6, slowest / 1_000_000, missed,
                    cpu, cpu * 1000 / (read / 1e6), serverCpu, serverCpu * 1000 / (read / 1e6), load());

            assertThat(read).as("the flood was read").isGreaterThan(FLOOD_MB * 1_000_000L * 9 / 10);
            assertThat(positions.largest).as("bytes of the largest collection").isLessThanOrEqualTo(LogInsightsTail.READ_BUDGET);
            assertThat(positions.largest).as("the backlog was read in budget-sized parts")
                    .isGreaterThan(LogInsightsTail.READ_BUDGET / 2);
            assertThat(missed).as("ticks of the fast metric missed (slowest tick %d ms)", slowest / 1_000_000).isZero();
            assertThat(errors).as("every marker error counted once").isEqualTo(markers.get());
        }
    }

    /** Writes the flood at an even pace, one marker error per second, until the total is written. */
    private static void flood(LogWorkload workload, TestPostgres pg, AtomicLong markers) {
        try (Connection writer = workload.connect()) {
            String file = pg.queryString("postgres", "select pg_current_logfile('" + FORMAT + "')");
            long base = fileSize(pg, file);
            long total = FLOOD_MB * 1_000_000L;
            long started = System.nanoTime();
            long written = 0;
            long second = -1;
            while (written < total) {
                double elapsed = (System.nanoTime() - started) / 1e9;
                if ((long) elapsed > second) {
                    second = (long) elapsed;
                    try {
                        LogWorkload.execute(writer, "select 1 / 0");
                    } catch (SQLException expected) {
                        markers.incrementAndGet();
                    }
                }
                if (written < total * Math.min(1, elapsed / FLOOD_SECONDS)) {
                    LogWorkload.execute(writer, RAISE);
                    written = fileSize(pg, file) - base;
                } else {
                    Thread.sleep(10);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long fileSize(TestPostgres pg, String file) {
        String name = file.substring(file.lastIndexOf('/') + 1);
        String directory = pg.queryString("postgres", "select current_setting('log_directory')");
        return Long.parseLong(pg.queryString("postgres", "select (pg_stat_file('" + directory + "/" + name + "')).size::text"));
    }

    /** utime + stime of a process, in clock ticks (1/100 s). */
    private static long cpuTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static String load() throws Exception {
        return Files.readString(Path.of("/proc/loadavg")).strip();
    }

    /** Positions in memory, keeping the last one and the most bytes one save advanced in a file. */
    private static final class RecordingPositions implements LogPositions {

        private volatile LogPosition last;
        private volatile long largest;

        @Override
        public Optional<LogPosition> find(String source) {
            return Optional.ofNullable(last);
        }

        @Override
        public void save(String source, LogPosition position) {
            if (last != null && last.file().equals(position.file())) {
                largest = Math.max(largest, position.offset() - last.offset());
            }
            last = position;
        }
    }
}
