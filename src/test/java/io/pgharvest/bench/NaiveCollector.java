package io.pgharvest.bench;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.ResultSetMapper;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.jsonfile.JsonFileSinkProperties;
import io.pgharvest.sink.jsonfile.JsonLinesSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The per-metric design pgharvest is measured against, built only for the benchmark: one virtual
 * thread per source x metric, each running ONE query per execution on its own fixed-rate
 * schedule, and a JSON-lines file as its sink.
 *
 * <p>Kept as fair as the design allows, so that the comparison measures the design and not
 * carelessness: the same catalog SQL and intervals, the same per-source grid and phase as
 * pgharvest's {@code TickSchedule} (no drift, no thundering herd), the same session settings, a
 * {@link PreparedStatement} per metric kept across executions (so the server reuses its plan after
 * pgjdbc's prepare threshold, as for pgharvest's pipelines), one connection per source shared
 * by its metric threads under a lock (a connection per source x metric would need 11,000
 * connections at 1,000 sources), and pgharvest's own row mapping ({@code ResultSetMapper}) and
 * JSON-lines sink, so that output costs the same on both sides.
 *
 * <p>Runs as its own JVM: {@code java -cp <test classpath> io.pgharvest.bench.NaiveCollector
 * <config.json>}; the harness reads the statistics file it rewrites every second.
 */
public final class NaiveCollector {

    /** What to collect and where to write; written by the harness as JSON. */
    record Config(List<SourceSpec> sources, List<MetricSpec> metrics, String applicationName,
            String measurementsFile, String statsFile, long statementTimeoutMillis, long lockTimeoutMillis) {

        Config {
            sources = List.copyOf(sources);
            metrics = List.copyOf(metrics);
        }
    }

    record SourceSpec(String name, String jdbcUrl) {
    }

    record MetricSpec(String name, String sql, int intervalSeconds) {
    }

    /** What the statistics file holds; cumulative since start. */
    record Stats(int sources, int connected, int metricThreads, long ticks, long skipped, long executionsOk,
            long executionsFailed, long measurementsQueued, long measurementsWritten, long rowsWritten,
            List<Double> lagBoundsSeconds, List<Long> lagCounts, double lagMaxSeconds, Map<String, String> lastErrors) {

        Stats {
            lastErrors = lastErrors == null ? Map.of() : Map.copyOf(lastErrors);
        }
    }

    private static final int BATCH = 500;
    /** Stops the writer; compared by identity. */
    private static final Measurement POISON = new Measurement("stop", "stop", Instant.EPOCH, List.of(), Map.of());

    private final Config config;
    private final LagHistogram lag = new LagHistogram();
    private final LongAdder ok = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder ticks = new LongAdder();
    private final LongAdder queued = new LongAdder();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicInteger metricThreads = new AtomicInteger();
    /** metric -> "count: last error", for the harness's diagnostics. */
    private final Map<String, String> lastErrors = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, LongAdder> errorCounts = new java.util.concurrent.ConcurrentHashMap<>();
    private final BlockingQueue<Measurement> sinkQueue = new LinkedBlockingQueue<>();
    private final List<SourceConnection> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;

    private NaiveCollector(Config config) {
        this.config = config;
    }

    public static void main(String[] args) throws Exception {
        Config config = HarvestClient.JSON.readValue(Path.of(args[0]).toFile(), Config.class);
        NaiveCollector collector = new NaiveCollector(config);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(collector::stop));
        collector.run();
    }

    private void run() throws InterruptedException {
        Thread writer = Thread.ofVirtual().name("naive-sink").start(this::writeMeasurements);
        Thread.ofVirtual().name("naive-stats").start(this::writeStatsEverySecond);
        long period = gcdMillis(config.metrics());
        for (SourceSpec source : config.sources()) {
            var connection = new SourceConnection(source, sessionProperties());
            connections.add(connection);
            long phase = Math.floorMod(source.name().hashCode() * 2_654_435_761L, period);
            var lastTick = new AtomicLong(Long.MIN_VALUE);
            for (MetricSpec metric : config.metrics()) {
                var loop = new MetricLoop(connection, metric, period, phase, lastTick);
                Thread.ofVirtual().name("naive-" + source.name() + "-" + metric.name()).start(loop);
                metricThreads.incrementAndGet();
            }
        }
        stopped.await();
        sinkQueue.add(POISON);
        writer.join(Duration.ofSeconds(10));
        writeStats();
    }

    private void stop() {
        running = false;
        stopped.countDown();
    }

    private Properties sessionProperties() {
        var props = new Properties();
        props.setProperty("ApplicationName", config.applicationName());
        props.setProperty("options", "-c default_transaction_read_only=on -c lock_timeout="
                + config.lockTimeoutMillis() + " -c statement_timeout=" + config.statementTimeoutMillis());
        props.setProperty("assumeMinServerVersion", "10");
        props.setProperty("tcpKeepAlive", "true");
        return props;
    }

    private static long gcdMillis(List<MetricSpec> metrics) {
        long gcd = 0;
        for (MetricSpec m : metrics) {
            gcd = Workload.gcd(gcd, m.intervalSeconds() * 1000L);
        }
        return Math.max(gcd, 1000);
    }

    /** One source's single connection, shared by its metric threads one at a time. */
    private final class SourceConnection {
        final ReentrantLock lock = new ReentrantLock();
        final SourceSpec spec;
        final Properties props;
        volatile Connection connection;
        long generation;

        SourceConnection(SourceSpec spec, Properties props) {
            this.spec = spec;
            this.props = props;
        }

        /** Call with {@link #lock} held. */
        Connection open() throws SQLException {
            if (connection == null) {
                connection = DriverManager.getConnection(spec.jdbcUrl(), props);
                generation++;
            }
            return connection;
        }

        /** Call with {@link #lock} held. */
        void discard() {
            try {
                if (connection != null) {
                    connection.close();
                }
            } catch (SQLException ignored) {
                // the session is being thrown away
            }
            connection = null;
        }

        boolean isOpen() {
            return connection != null;
        }
    }

    /** One source x metric: sleeps until its next grid point, runs its query alone, repeats. */
    private final class MetricLoop implements Runnable {
        private final SourceConnection source;
        private final MetricSpec metric;
        private final long intervalMillis;
        private final long firstDue;
        private final AtomicLong sourceLastTick;
        private Statement statement;
        private long statementGeneration;

        MetricLoop(SourceConnection source, MetricSpec metric, long period, long phase, AtomicLong sourceLastTick) {
            this.source = source;
            this.metric = metric;
            this.intervalMillis = metric.intervalSeconds() * 1000L;
            long now = System.currentTimeMillis();
            long k = Math.floorDiv(now - phase + period - 1, period);
            this.firstDue = phase + k * period; // first grid point at or after now, as pgharvest plans
            this.sourceLastTick = sourceLastTick;
        }

        @Override
        public void run() {
            long due = firstDue;
            try {
                while (running) {
                    long wait = due - System.currentTimeMillis();
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    execute(due);
                    long next = due + intervalMillis;
                    long now = System.currentTimeMillis();
                    if (next <= now) {
                        long missed = (now - next) / intervalMillis + 1;
                        skipped.add(missed);
                        next += missed * intervalMillis;
                    }
                    due = next;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void execute(long due) {
            List<Measurement.Row> rows;
            Instant reported;
            source.lock.lock();
            try {
                lag.record((System.currentTimeMillis() - due) * 1_000_000L);
                countTick(due);
                Connection c = source.open();
                if (statement == null || statementGeneration != source.generation) {
                    // '?' would be read as a bind placeholder: such SQL runs unprepared, as in pgharvest
                    statement = metric.sql().indexOf('?') >= 0 ? c.createStatement() : c.prepareStatement(metric.sql());
                    statementGeneration = source.generation;
                }
                try (ResultSet rs = statement instanceof PreparedStatement ps
                        ? ps.executeQuery() : statement.executeQuery(metric.sql())) {
                    FetchedRows fetched = ResultSetMapper.read(rs);
                    rows = fetched.rows();
                    reported = fetched.reportedTime();
                }
                ok.increment();
            } catch (SQLException e) {
                failed.increment();
                LongAdder count = errorCounts.computeIfAbsent(metric.name(), m -> new LongAdder());
                count.increment();
                lastErrors.put(metric.name(), count.sum() + " x [" + e.getSQLState() + "] " + e.getMessage());
                String state = e.getSQLState();
                if (state != null && (state.startsWith("08") || state.startsWith("57P"))) {
                    source.discard();
                    statement = null;
                }
                return;
            } finally {
                source.lock.unlock();
            }
            queued.increment();
            sinkQueue.add(new Measurement(source.spec.name(), metric.name(),
                    reported != null ? reported : Instant.now(), rows, Map.of()));
        }

        private void countTick(long due) {
            long last = sourceLastTick.get();
            if (due > last && sourceLastTick.compareAndSet(last, due)) {
                ticks.increment();
            }
        }
    }

    /**
     * The sink: pgharvest's own JSON-lines sink, fed by one writer in batches of up to
     * {@value #BATCH} (pgharvest's default batch size), so both collectors pay the same for output.
     */
    private void writeMeasurements() {
        Path file = Path.of(config.measurementsFile()).toAbsolutePath().normalize();
        try (JsonLinesSink sink = JsonLinesSink.create("naive", file, JsonFileSinkProperties.writing(file))) {
            var batch = new ArrayList<Measurement>(BATCH);
            boolean stopping = false;
            while (!stopping) {
                batch.add(sinkQueue.take());
                sinkQueue.drainTo(batch, BATCH - 1);
                stopping = batch.remove(POISON);
                sink.write(batch);
                written.addAndGet(batch.size());
                rowsWritten.addAndGet(batch.stream().mapToLong(m -> m.rows().size()).sum());
                batch.clear();
            }
        } catch (IOException e) {
            System.err.println("naive sink failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void writeStatsEverySecond() {
        while (running) {
            try {
                writeStats();
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                System.err.println("naive stats failed: " + e);
            }
        }
    }

    private void writeStats() {
        int connected = (int) connections.stream().filter(SourceConnection::isOpen).count();
        LagHistogram.Counts counts = lag.snapshot();
        var stats = new Stats(config.sources().size(), connected, metricThreads.get(), ticks.sum(), skipped.sum(),
                ok.sum(), failed.sum(), queued.sum(), written.get(), rowsWritten.get(), counts.boundsSeconds(),
                counts.counts(), counts.maxSeconds(), Map.copyOf(lastErrors));
        Path target = Path.of(config.statsFile());
        Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.writeString(temp, HarvestClient.JSON.writeValueAsString(stats), StandardCharsets.UTF_8);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("naive stats not written: " + e);
        }
    }
}
