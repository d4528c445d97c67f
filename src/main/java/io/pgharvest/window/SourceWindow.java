package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.ChangeNotifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The series of one source. One writer (the window's feed thread) and any number of readers (API
 * requests) share it under one lock held for array copies only, never for I/O. Each recorded
 * measurement advances {@link #changes()}, which the API's blocking form for this source parks on.
 */
final class SourceWindow {

    static final String QUERY_STATS = "query_stats";
    /** The query_stats columns a {@link Statement} sums, in its order. */
    static final List<String> STATEMENT_COLUMNS = List.of("calls", "total_exec_time", "rows", "shared_blks_read");

    private final String source;
    private final WindowLimits limits;
    private final MemoryBudget budget;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<SeriesKey, SeriesRing> series = new HashMap<>();
    private final ChangeNotifier changes = new ChangeNotifier(0);
    private long recorded;
    private long newest;
    /** The collection time of the first measurement recorded (0 before any): what the window can answer from. */
    private long oldest;

    private final LongAdder refusedSeries;
    private final SessionSamples samples;
    private final QueryTexts texts;
    private final StatementPlans plans;

    SourceWindow(String source, WindowLimits limits, MemoryBudget budget, LongAdder refusedSeries) {
        this.source = source;
        this.limits = limits;
        this.budget = budget;
        this.refusedSeries = refusedSeries;
        this.samples = new SessionSamples(limits.samplesPerSource(), budget);
        this.texts = new QueryTexts(limits.textsPerSource(), budget);
        this.plans = new StatementPlans(limits.plansPerSource(), limits.maxPlanBytes(), budget);
    }

    /** Keeps the charted columns of {@code m}; a series beyond the per-source cap or the budget is refused and counted. */
    void record(Measurement m, Map<String, SeriesKind> columns) {
        long time = m.time().toEpochMilli();
        long sequence;
        lock.lock();
        try {
            for (Measurement.Row row : m.rows()) {
                for (Map.Entry<String, Object> cell : row.values().entrySet()) {
                    if (cell.getValue() instanceof Number number && columns.containsKey(cell.getKey())) {
                        SeriesRing ring = ringFor(new SeriesKey(m.metric(), cell.getKey(), row.tags()));
                        if (ring != null) {
                            ring.append(time, number.doubleValue(), limits.spanMillis(), limits.pointsPerSeries(), budget);
                        }
                    }
                }
            }
            newest = Math.max(newest, time);
            oldest = oldest == 0 ? time : Math.min(oldest, time);
            sequence = ++recorded;
        } finally {
            lock.unlock();
        }
        changes.advanceTo(sequence);
    }

    /** Keeps the rows of {@code query_samples}, {@code query_texts} or {@code query_plans}, which are not numeric series. */
    void recordActivity(Measurement m) {
        long sequence;
        lock.lock();
        try {
            switch (m.metric()) {
                case SessionSamples.METRIC -> samples.record(m);
                case StatementPlans.METRIC -> plans.record(m);
                default -> texts.record(m);
            }
            newest = Math.max(newest, m.time().toEpochMilli());
            sequence = ++recorded;
        } finally {
            lock.unlock();
        }
        changes.advanceTo(sequence);
    }

    /**
     * A sampling older than this does not make a statement "running" (the source is no longer
     * sampled, or samples every minute at most).
     */
    static final long RUNNING_FRESH_MILLIS = 90_000;

    /** Every statement's cost summed over the points at or after {@code from}, with its text when known. */
    List<Statement> statements(long from) {
        return statements(from, Long.MIN_VALUE);
    }

    /**
     * Every statement's cost summed over the points at or after {@code from}, with its text when
     * known and the sessions running it at the newest sampling if that was within
     * {@link #RUNNING_FRESH_MILLIS} of {@code now}; a statement running then without a query_stats
     * row yet is listed too.
     */
    List<Statement> statements(long from, long now) {
        return statements(from, Long.MAX_VALUE, now);
    }

    /** As {@link #statements(long, long)}, over the points from {@code from} to {@code to} inclusive. */
    List<Statement> statements(long from, long to, long now) {
        lock.lock();
        try {
            var sums = new HashMap<Map<String, String>, double[]>();
            for (Map.Entry<SeriesKey, SeriesRing> entry : series.entrySet()) {
                SeriesKey key = entry.getKey();
                int column = STATEMENT_COLUMNS.indexOf(key.column());
                if (key.metric().equals(QUERY_STATS) && column >= 0) {
                    SeriesRing ring = entry.getValue();
                    double[] sum = sums.computeIfAbsent(key.tags(), tags -> new double[STATEMENT_COLUMNS.size()]);
                    for (int i = ring.firstAtOrAfter(from); i < ring.size() && ring.time(i) <= to; i++) {
                        sum[column] += ring.value(i);
                    }
                }
            }
            var running = new HashMap<>(samples.running(now == Long.MIN_VALUE ? now : now - RUNNING_FRESH_MILLIS));
            var found = new ArrayList<Statement>(sums.size() + running.size());
            var listed = new HashSet<SessionSamples.Running>();
            sums.forEach((tags, sum) -> {
                String queryid = tags.getOrDefault("queryid", "");
                String dbname = tags.getOrDefault("dbname", "");
                Instant planChanged = plans.changedAt(dbname, queryid);
                var statement = new SessionSamples.Running(dbname, queryid);
                listed.add(statement);
                found.add(new Statement(queryid, dbname, tags.getOrDefault("user", ""),
                        tags.getOrDefault("toplevel", ""), sum[0], sum[1], sum[0] > 0 ? sum[1] / sum[0] : null, sum[2],
                        sum[3], texts.text(queryid),
                        planChanged != null && planChanged.toEpochMilli() >= from ? planChanged : null,
                        running.getOrDefault(statement, 0), null));
            });
            running.forEach((statement, sessions) -> {
                if (!listed.contains(statement)) {
                    found.add(new Statement(statement.queryid(), statement.dbname(), "", "", 0, 0, null, 0, 0,
                            texts.text(statement.queryid()), null, sessions, null));
                }
            });
            return found;
        } finally {
            lock.unlock();
        }
    }

    /** Whether any series of {@code metric} answers a point at or after {@code from} from the snapshot. */
    boolean restoredSince(long from, String metric) {
        lock.lock();
        try {
            for (Map.Entry<SeriesKey, SeriesRing> entry : series.entrySet()) {
                if (entry.getKey().metric().equals(metric) && entry.getValue().restoredSince(from)) {
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** The text of a statement, or null when none was read. */
    String text(String queryid) {
        lock.lock();
        try {
            return texts.text(queryid);
        } finally {
            lock.unlock();
        }
    }

    /** The latest plan of a statement in each database that has one, with the hash it replaced. */
    List<Plan> plans(String queryid) {
        lock.lock();
        try {
            return plans.of(queryid);
        } finally {
            lock.unlock();
        }
    }

    /** The samples at or after {@code from} running {@code queryid} (every sample when null), newest first. */
    List<Sample> samples(long from, String queryid, int limit) {
        return samples(from, Long.MAX_VALUE, queryid, limit);
    }

    /** The samples from {@code from} to {@code to} inclusive running {@code queryid} (all when null), newest first. */
    List<Sample> samples(long from, long to, String queryid, int limit) {
        lock.lock();
        try {
            return samples.read(from, sample -> (queryid == null || queryid.equals(sample.queryid()))
                    && sample.time().toEpochMilli() <= to, limit);
        } finally {
            lock.unlock();
        }
    }

    private SeriesRing ringFor(SeriesKey key) {
        SeriesRing ring = series.get(key);
        if (ring != null) {
            return ring;
        }
        if (series.size() >= limits.seriesPerSource() || (ring = SeriesRing.open(budget)) == null) {
            refusedSeries.increment();
            return null;
        }
        series.put(key, ring);
        return ring;
    }

    /** The series of {@code metrics} (all when empty) with their points at or after {@code from}. */
    List<Series> read(long from, Set<String> metrics) {
        return read(from, Long.MAX_VALUE, metrics);
    }

    /** The series of {@code metrics} (all when empty) with their points from {@code from} to {@code to} inclusive. */
    List<Series> read(long from, long to, Set<String> metrics) {
        var found = new ArrayList<Series>();
        lock.lock();
        try {
            for (Map.Entry<SeriesKey, SeriesRing> entry : series.entrySet()) {
                SeriesKey key = entry.getKey();
                if (metrics.isEmpty() || metrics.contains(key.metric())) {
                    SeriesKind kind = ChartedColumns.kind(key.metric(), key.column()).orElse(SeriesKind.GAUGE);
                    found.add(SeriesReader.read(key, kind, entry.getValue(), from, to));
                }
            }
        } finally {
            lock.unlock();
        }
        found.sort(SeriesReader.ORDER);
        return found;
    }

    /** The series of {@code metric} with their points at or after {@code from} as collected (no rates). */
    List<Series> recorded(long from, String metric) {
        var found = new ArrayList<Series>();
        lock.lock();
        try {
            series.forEach((key, ring) -> {
                if (key.metric().equals(metric)) {
                    found.add(SeriesReader.read(key, SeriesKind.GAUGE, ring, from, Long.MAX_VALUE));
                }
            });
        } finally {
            lock.unlock();
        }
        return found;
    }

    KeyNumbers keyNumbers() {
        lock.lock();
        try {
            Double commits = latestRate("db_stats", "xact_commit");
            Double rollbacks = latestRate("db_stats", "xact_rollback");
            Double connections = latest("backends", "total");
            Double lag = latest("replication", "replay_lag_b");
            Double sessions = connections != null ? connections : latest("db_stats", "numbackends");
            return new KeyNumbers(source, commits == null ? null : commits + (rollbacks == null ? 0 : rollbacks),
                    sessions, sessions, latest("db_size", "size_b"),
                    lag != null ? lag : latest("wal_receiver", "unreplayed_b"),
                    newest == 0 ? null : Instant.ofEpochMilli(newest), Series.WINDOW, null);
        } finally {
            lock.unlock();
        }
    }

    /** The largest newest value of the column over its rows, or null. Caller holds the lock. */
    private Double latest(String metric, String column) {
        Double max = null;
        for (Map.Entry<SeriesKey, SeriesRing> entry : series.entrySet()) {
            SeriesRing ring = entry.getValue();
            if (entry.getKey().metric().equals(metric) && entry.getKey().column().equals(column) && ring.size() > 0) {
                double value = ring.value(ring.size() - 1);
                max = max == null ? value : Math.max(max, value);
            }
        }
        return max;
    }

    /** The sum over rows of the counter's rate between its last two points, or null. Caller holds the lock. */
    private Double latestRate(String metric, String column) {
        Double sum = null;
        for (Map.Entry<SeriesKey, SeriesRing> entry : series.entrySet()) {
            SeriesRing ring = entry.getValue();
            if (entry.getKey().metric().equals(metric) && entry.getKey().column().equals(column) && ring.size() > 1) {
                int last = ring.size() - 1;
                double rate = SeriesReader.rate(ring, last);
                if (!Double.isNaN(rate)) {
                    sum = sum == null ? rate : sum + rate;
                }
            }
        }
        return sum;
    }

    /** Drops series whose newest point is before {@code cutoff}, releasing their memory; true when none is left. */
    boolean dropOlderThan(long cutoff) {
        lock.lock();
        try {
            for (Iterator<SeriesRing> rings = series.values().iterator(); rings.hasNext();) {
                SeriesRing ring = rings.next();
                if (ring.size() == 0 || ring.newestTime() < cutoff) {
                    budget.release(ring.reservedBytes());
                    rings.remove();
                }
            }
            boolean noSamples = samples.dropOlderThan(cutoff);
            if (series.isEmpty() && noSamples) {
                texts.clear();
                plans.clear();
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** The collection time of the first measurement this window recorded, 0 when none. */
    long oldest() {
        lock.lock();
        try {
            return oldest;
        } finally {
            lock.unlock();
        }
    }

    /** A copy of this source's series (points as recorded) and texts, for the window's snapshot. */
    WindowPicture.SourcePicture picture() {
        var copied = new ArrayList<WindowPicture.SeriesPicture>();
        lock.lock();
        try {
            for (Map.Entry<SeriesKey, SeriesRing> entry : series.entrySet()) {
                SeriesRing ring = entry.getValue();
                long[] times = new long[ring.size()];
                double[] values = new double[ring.size()];
                for (int i = 0; i < ring.size(); i++) {
                    times[i] = ring.time(i);
                    values[i] = ring.value(i);
                }
                copied.add(new WindowPicture.SeriesPicture(entry.getKey(), times, values));
            }
            return new WindowPicture.SourcePicture(source, copied, texts.copy());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a snapshot's points at or after {@code cutoff} and its texts into this (new) source
     * window, within the same caps and budget as recorded points; the points are marked restored so
     * the API says {@code store: snapshot} while they are in a span. Series of columns the window no
     * longer charts are skipped. Returns the points taken.
     */
    long restore(WindowPicture.SourcePicture picture, long cutoff) {
        long taken = 0;
        lock.lock();
        try {
            for (WindowPicture.SeriesPicture restored : picture.series()) {
                SeriesKey key = restored.key();
                if (ChartedColumns.kind(key.metric(), key.column()).isEmpty()) {
                    continue;
                }
                SeriesRing ring = null;
                for (int i = 0; i < restored.times().length; i++) {
                    if (restored.times()[i] >= cutoff && (ring != null || (ring = ringFor(key)) != null)) {
                        ring.append(restored.times()[i], restored.values()[i], limits.spanMillis(),
                                limits.pointsPerSeries(), budget);
                        taken++;
                    }
                }
                if (ring != null) {
                    // The window answers a range from its restored points as from recorded ones.
                    ring.markRestored();
                    newest = Math.max(newest, ring.newestTime());
                    oldest = oldest == 0 ? ring.time(0) : Math.min(oldest, ring.time(0));
                }
            }
            picture.texts().forEach(texts::keep);
        } finally {
            lock.unlock();
        }
        return taken;
    }

    ChangeNotifier changes() {
        return changes;
    }

    String source() {
        return source;
    }

    int seriesCount() {
        lock.lock();
        try {
            return series.size();
        } finally {
            lock.unlock();
        }
    }
}
