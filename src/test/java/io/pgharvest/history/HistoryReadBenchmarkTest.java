package io.pgharvest.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.history.postgres.PostgresHistoryPlugin;
import io.pgharvest.history.postgres.PostgresHistorySettings;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.window.Series;
import io.pgharvest.window.StoredHistory;
import io.pgharvest.window.TimeRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The postgres history reader at fleet scale: {@code bench.history.days} (30) days of
 * {@code bench.history.sources} (300) sources' db_stats, backends and query_stats every
 * {@code bench.history.interval} (60 s), written through the postgres sink (its own COPY encoder,
 * back-dated collection times) into a server of its own; then the time and the server's CPU of a
 * 7-day source page (every charted metric at the default step plus its 7-day top statements) and
 * of a source's 30-day top statements, each read five times. Prints {@code benchmark:} lines
 * (bench/history-bench.sh collects them); the targets (under 1 s and under 2 s) are
 * docs/performance.md's, never asserted. Not in the default suite.
 */
@Tag("benchmark")
class HistoryReadBenchmarkTest {

    private static final int DAYS = Integer.getInteger("bench.history.days", 30);
    private static final int SOURCES = Integer.getInteger("bench.history.sources", 300);
    private static final Duration INTERVAL = Duration.ofSeconds(Integer.getInteger("bench.history.interval", 60));
    private static final int WRITERS = 4;

    @Test
    void aSevenDaySourcePageAndThirtyDayTopStatementsAreMeasured() throws Exception {
        Instant end = Instant.now().truncatedTo(ChronoUnit.HOURS);
        Instant start = end.minus(Duration.ofDays(DAYS));
        List<String> names = IntStream.range(0, SOURCES).mapToObj(i -> "bench-" + i).toList();
        try (TestPostgres pg = TestPostgres.start(Map.of()); SinkPoolThreads threads = new SinkPoolThreads()) {
            pg.createDatabase("history_bench");
            long written = System.nanoTime();
            long rows = write(pg, threads, names, start, end);
            System.out.printf("benchmark: history write: %d sources, %d days at %s, %,d measurements in %.1f s%n",
                    SOURCES, DAYS, INTERVAL, rows, (System.nanoTime() - written) / 1e9);
            pg.execute("history_bench", "VACUUM ANALYZE");
            var reader = new PostgresHistoryPlugin().create("bench", new PostgresHistorySettings(
                    pg.connStr("history_bench"), null, null, 4, Duration.ofMinutes(1), null));
            try (var readers = new HistoryReaders(List.of(reader), () -> null, Duration.ofMinutes(2))) {
                String source = names.get(SOURCES / 2);
                long postmaster = postmaster(pg);
                for (int run = 1; run <= 5; run++) {
                    long cpu = serverCpuTicks(postmaster);
                    long begun = System.nanoTime();
                    var week = TimeRange.of(end.minus(Duration.ofDays(7)), end);
                    StoredHistory.Answer<Series> page = readers.series(source, week, Set.of());
                    StoredHistory.Answer<io.pgharvest.window.Statement> top = readers.statements(source, week);
                    double pageSeconds = (System.nanoTime() - begun) / 1e9;
                    double pageCpu = (serverCpuTicks(postmaster) - cpu) / (double) CLOCK_TICKS;
                    assertThat(page.error()).isNull();
                    assertThat(page.items()).isNotEmpty();
                    assertThat(top.items()).isNotEmpty();

                    cpu = serverCpuTicks(postmaster);
                    begun = System.nanoTime();
                    StoredHistory.Answer<io.pgharvest.window.Statement> month = readers.statements(source,
                            TimeRange.of(start, end));
                    double monthSeconds = (System.nanoTime() - begun) / 1e9;
                    double monthCpu = (serverCpuTicks(postmaster) - cpu) / (double) CLOCK_TICKS;
                    assertThat(month.error()).isNull();
                    System.out.printf("benchmark: history read %d: 7-day source page (%d series, %d points, %d"
                            + " statements) %.3f s, server CPU %.2f s; %d-day top statements %.3f s, server CPU %.2f s%n",
                            run, page.items().size(), page.items().stream().mapToInt(s -> s.times().length).sum(),
                            top.items().size(), pageSeconds, pageCpu, DAYS, monthSeconds, monthCpu);
                }
            }
        }
    }

    /** The fleet's rows through {@value #WRITERS} postgres sinks at once, each for its share of the sources. */
    private static long write(TestPostgres pg, SinkPoolThreads threads, List<String> names, Instant start, Instant end)
            throws Exception {
        try (var pool = Executors.newFixedThreadPool(WRITERS)) {
            var futures = new ArrayList<Future<Long>>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                List<String> share = IntStream.range(0, names.size()).filter(i -> i % WRITERS == writer)
                        .mapToObj(names::get).toList();
                futures.add(pool.submit(() -> {
                    PostgresSink sink = PostgresSink.create("pgharvest.sinks[" + writer + "]", "bench-" + writer,
                            PostgresSinkProperties.of(pg.connStr("history_bench")).withRetention(Duration.ZERO),
                            threads, Clock.systemUTC());
                    try {
                        var fleet = new FleetHistory(share);
                        var batch = new ArrayList<Measurement>();
                        long count = 0;
                        long minute = 0;
                        for (Instant t = start; t.isBefore(end); t = t.plus(INTERVAL), minute++) {
                            batch.addAll(fleet.minute(minute, t));
                            if (batch.size() >= 6_000) {
                                sink.write(batch);
                                count += batch.size();
                                batch.clear();
                            }
                        }
                        sink.write(batch);
                        return count + batch.size();
                    } finally {
                        sink.close();
                    }
                }));
            }
            long total = 0;
            for (Future<Long> future : futures) {
                total += future.get();
            }
            return total;
        }
    }

    private static final long CLOCK_TICKS = 100; // USER_HZ on Linux

    private static long postmaster(TestPostgres pg) throws Exception {
        try (var c = pg.connect("postgres"); var s = c.createStatement();
                var rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return stat(Path.of("/proc/" + rs.getLong(1) + "/stat"))[0]; // read while the backend lives
        }
    }

    /** The user and system CPU, in clock ticks, of every process the postmaster started (its backends, workers). */
    private static long serverCpuTicks(long postmaster) throws IOException {
        long ticks = 0;
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                long[] stat = stat(process.resolve("stat"));
                if (stat != null && stat[0] == postmaster) {
                    ticks += stat[1];
                }
            }
        }
        return ticks;
    }

    /** {ppid, utime + stime} of /proc/N/stat, or null when the process is gone. */
    private static long[] stat(Path file) {
        try {
            String text = Files.readString(file);
            String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[11]) + Long.parseLong(fields[12])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
