package io.pgharvest.sink.remotewrite;

import io.pgharvest.sink.postgres.PostgresSinkProperties;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SeriesMapping;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.testsupport.TestReceiver;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the remote-write sink costs, on the same measurements as the PostgreSQL sink: 300 sources,
 * each reporting per round db_stats (1 row), backends (1 row), a table_stats-like metric (10 rows,
 * one per table) and locks (5 rows), in batches of 500 measurements as the sink queue hands them
 * over. Prints samples per second, compressed bytes on the wire per sample, and CPU time per sample
 * of this JVM (process CPU, so the HTTP client's and the JDBC driver's threads and GC count) and of the
 * receiving server. Not a timed test: no figure is asserted, only that the receiver holds every series.
 *
 * <pre>
 * ./mvnw -B verify -Dtest=RemoteWriteBenchmark -Dtest.excludedGroups= [-Dpgharvest.bench.rounds=20]
 * </pre>
 */
@Tag("benchmark")
class RemoteWriteBenchmark {

    private static final int SOURCES = 300;
    private static final int ROUNDS = Integer.getInteger("pgharvest.bench.rounds", 20);
    private static final int WARM_UP_ROUNDS = 3;
    private static final int BATCH = 500;
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private record Figures(String sink, long samples, long measurements, double seconds, double jvmCpuSeconds,
            double serverCpuSeconds, long wireBytes) {

        String line() {
            return String.format("%-24s %,10d samples %,7d measurements  %6.2f s  %,9.0f samples/s  "
                            + "JVM CPU %5.2f s = %5.2f µs/sample  server CPU %5.2f s = %5.2f µs/sample%s",
                    sink, samples, measurements, seconds, samples / seconds, jvmCpuSeconds, jvmCpuSeconds * 1e6 / samples,
                    serverCpuSeconds, serverCpuSeconds * 1e6 / samples,
                    wireBytes < 0 ? "" : String.format("  %,d bytes on the wire = %.2f bytes/sample", wireBytes,
                            (double) wireBytes / samples));
        }
    }

    @Test
    void remoteWriteAndPostgresSinksAreMeasuredOnTheSameMeasurements() throws Exception {
        Instant start = Instant.now().minus(INTERVAL.multipliedBy(ROUNDS + WARM_UP_ROUNDS + 2));
        var figures = new ArrayList<Figures>();
        double[] load = new double[2];
        load[0] = OS.getSystemLoadAverage();
        for (TestReceiver.Kind kind : TestReceiver.Kind.values()) {
            try (TestReceiver receiver = TestReceiver.start(kind)) {
                var settings = RemoteWriteSinkProperties.of(receiver.writeUrl());
                try (var sink = new RemoteWriteSink("bench", ReceiverEndpoint.of("bench", settings),
                        new SeriesMapping(catalog(), null), Clock.systemUTC(), new SimpleMeterRegistry())) {
                    figures.add(run("remote write → " + kind.name().toLowerCase().replace('_', '-'), sink, start,
                            receiver::cpuTime, sink::bytesSent));
                }
                receiver.flush();
                assertThat(receiver.query("count(last_over_time(pgharvest_db_stats_c0[30m]))", Instant.now()).get(0)
                        .path("value").get(1).asString()).isEqualTo(String.valueOf(SOURCES));
            }
        }
        try (TestPostgres pg = TestPostgres.start(Map.of("fsync", "on", "synchronous_commit", "on"));
                SinkPoolThreads threads = new SinkPoolThreads()) {
            pg.createDatabase("bench");
            var settings = PostgresSinkProperties.of(pg.connStr("bench"));
            try (Sink sink = PostgresSink.create("bench", "bench", settings, threads, catalog(), Clock.systemUTC())) {
                figures.add(run("postgres (COPY, fsync on)", sink, start, () -> postgresCpu(pg), () -> -1L));
            }
        }
        load[1] = OS.getSystemLoadAverage();
        System.out.printf("Remote-write benchmark: %d sources, %d rounds (%d warm-up), batches of %d measurements; "
                + "%d cores, load average %.1f at start, %.1f at end%n", SOURCES, ROUNDS, WARM_UP_ROUNDS, BATCH,
                OS.getAvailableProcessors(), load[0], load[1]);
        figures.forEach(f -> System.out.println(f.line()));
    }

    private interface CpuClock {
        Duration cpu() throws Exception;
    }

    private interface Counter {
        long get() throws Exception;
    }

    private static Figures run(String name, Sink sink, Instant start, CpuClock server, Counter wireBytes)
            throws Exception {
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            writeRound(sink, start.plus(INTERVAL.multipliedBy(round)));
        }
        long bytesBefore = wireBytes.get();
        Duration serverBefore = server.cpu();
        long cpuBefore = OS.getProcessCpuTime();
        long began = System.nanoTime();
        long samples = 0;
        long measurements = 0;
        for (int round = WARM_UP_ROUNDS; round < WARM_UP_ROUNDS + ROUNDS; round++) {
            long[] counts = writeRound(sink, start.plus(INTERVAL.multipliedBy(round)));
            samples += counts[0];
            measurements += counts[1];
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        double jvmCpu = (OS.getProcessCpuTime() - cpuBefore) / 1e9;
        double serverCpu = (server.cpu().minus(serverBefore)).toNanos() / 1e9;
        long bytes = wireBytes.get() < 0 ? -1 : wireBytes.get() - bytesBefore;
        return new Figures(name, samples, measurements, seconds, jvmCpu, serverCpu, bytes);
    }

    /** @return samples and measurements written */
    private static long[] writeRound(Sink sink, Instant time) throws Exception {
        long samples = 0;
        var batch = new ArrayList<Measurement>(BATCH);
        long measurements = 0;
        for (int source = 0; source < SOURCES; source++) {
            for (Measurement m : sourceRound(source, time.plusMillis(source * 37L))) {
                batch.add(m);
                samples += m.rows().stream().mapToLong(r -> r.values().size()).sum() - m.rows().size(); // minus epoch_ns
                if (batch.size() == BATCH) {
                    sink.write(List.copyOf(batch));
                    measurements += batch.size();
                    batch.clear();
                }
            }
        }
        if (!batch.isEmpty()) {
            sink.write(List.copyOf(batch));
            measurements += batch.size();
        }
        return new long[] {samples, measurements};
    }

    /** One source's measurements of one round; every value a number (each one sample). */
    private static List<Measurement> sourceRound(int source, Instant time) {
        long seed = time.getEpochSecond() / 30 + source;
        String name = "db-" + source;
        Map<String, String> tags = Map.of("env", source % 3 == 0 ? "prod" : "test", "cluster", "c" + source % 10);
        var all = new ArrayList<Measurement>(4);
        all.add(new Measurement(name, "db_stats", time, List.of(row(28, seed * 1000, Map.of())), tags));
        all.add(new Measurement(name, "backends", time, List.of(row(20, seed % 50, Map.of())), tags));
        var tables = new ArrayList<Measurement.Row>(10);
        for (int t = 0; t < 10; t++) {
            tables.add(row(12, seed * 100 + t, Map.of("table_name", "public.table_" + t)));
        }
        all.add(new Measurement(name, "table_stats", time, tables, tags));
        var locks = new ArrayList<Measurement.Row>(5);
        for (String mode : List.of("AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareLock", "ExclusiveLock")) {
            locks.add(row(2, seed % 7, Map.of("locktype", "relation", "mode", mode)));
        }
        all.add(new Measurement(name, "locks", time, locks, tags));
        return all;
    }

    private static Measurement.Row row(int columns, long base, Map<String, String> tags) {
        var values = new LinkedHashMap<String, Object>();
        values.put("epoch_ns", 0L);
        for (int c = 0; c < columns; c++) {
            values.put("c" + c, c % 4 == 3 ? (base + c) / 7.0 : base + c);
        }
        return new Measurement.Row(values, tags);
    }

    /** db_stats and table_stats counters except c0 (a gauge); backends and locks gauges. */
    private static MetricCatalog catalog() {
        return name -> switch (name) {
            case "db_stats", "table_stats" -> Optional.of(new MetricDefinition(name, "", Map.of(14, "select 1"),
                    List.of("c0"), false, null, name, null, null, null));
            case "backends", "locks" -> Optional.of(new MetricDefinition(name, "", Map.of(14, "select 1"),
                    List.of("*"), false, null, name, null, null, null));
            default -> Optional.empty();
        };
    }

    /** CPU time of every process of the test server (postmaster and backends), from /proc. */
    private static Duration postgresCpu(TestPostgres pg) throws Exception {
        String pid = pg.queryString("postgres", "select pid from pg_stat_activity where backend_type = 'checkpointer'");
        long postmaster = ProcessHandle.of(Long.parseLong(pid)).flatMap(ProcessHandle::parent).orElseThrow().pid();
        long ticks = 0;
        for (long child : ProcessHandle.of(postmaster).orElseThrow().descendants().map(ProcessHandle::pid).toList()) {
            ticks += procTicks(child);
        }
        ticks += procTicks(postmaster);
        return Duration.ofMillis(ticks * 10); // USER_HZ = 100
    }

    /** utime + stime + cutime + cstime of a process, in clock ticks; 0 when it is gone. */
    private static long procTicks(long pid) {
        try {
            String stat = Files.readString(java.nio.file.Path.of("/proc", String.valueOf(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]) + Long.parseLong(fields[13])
                    + Long.parseLong(fields[14]);
        } catch (Exception gone) {
            return 0;
        }
    }
}
