package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.ChangeNotifier;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The recent window: per source, the numeric series of the {@link ChartedColumns} for the last
 * span, within a hard {@link MemoryBudget}. Written by one {@link WindowFeed} thread, read by API
 * requests. {@link #changes()} advances with every recorded measurement of any source (the fleet's
 * key numbers park on it); each source has its own notifier too.
 */
final class RecentWindow implements RecordedPoints {

    /** How much later than a range's start the window's first point may be for it to answer the range. */
    static final long COVERAGE_SLACK_MILLIS = 90_000;

    private final WindowLimits limits;
    private final MemoryBudget budget;
    private final Clock clock;
    private final Map<String, SourceWindow> sources = new ConcurrentHashMap<>();
    private final ChangeNotifier changes = new ChangeNotifier(0);
    private final AtomicLong recorded = new AtomicLong();
    private final LongAdder refusedSeries = new LongAdder();
    private final LatestReads reads;

    RecentWindow(WindowLimits limits, long maxMemoryBytes, Clock clock) {
        this.limits = limits;
        this.budget = new MemoryBudget(maxMemoryBytes);
        this.clock = clock;
        this.reads = new LatestReads(budget);
    }

    /** Keeps the charted columns of the measurements; called by the one writer thread. */
    void record(List<Measurement> measurements) {
        boolean any = false;
        for (Measurement m : measurements) {
            reads.record(m);
            Map<String, SeriesKind> columns = ChartedColumns.of(m.metric());
            boolean activity = m.metric().equals(SessionSamples.METRIC) || m.metric().equals(QueryTexts.METRIC)
                    || m.metric().equals(StatementPlans.METRIC);
            // An empty sampling counts: it says that nothing runs now.
            if ((columns == null && !activity) || m.rows().isEmpty() && !m.metric().equals(SessionSamples.METRIC)) {
                continue;
            }
            SourceWindow window = sources.computeIfAbsent(m.source(),
                    name -> new SourceWindow(name, limits, budget, refusedSeries));
            if (activity) {
                window.recordActivity(m);
            } else {
                window.record(m, columns);
            }
            any = true;
        }
        if (any) {
            changes.advanceTo(recorded.incrementAndGet());
        }
    }

    /** The source's series of {@code metrics} (all when empty) since {@code fromMillis}; empty when it has none. */
    List<Series> read(String source, long fromMillis, Set<String> metrics) {
        SourceWindow window = sources.get(source);
        return window == null ? List.of() : window.read(fromMillis, metrics);
    }

    /** The source's series of {@code metrics} (all when empty) from {@code fromMillis} to {@code toMillis} inclusive. */
    List<Series> read(String source, long fromMillis, long toMillis, Set<String> metrics) {
        SourceWindow window = sources.get(source);
        return window == null ? List.of() : window.read(fromMillis, toMillis, metrics);
    }

    @Override
    public List<Series> recorded(String source, String metric, long fromMillis) {
        SourceWindow window = sources.get(source);
        return window == null ? List.of() : window.recorded(fromMillis, metric);
    }

    /**
     * Whether the window holds the source's points from {@code from} on: {@code from} is within its
     * span and it recorded the source since at most {@link #COVERAGE_SLACK_MILLIS} after {@code from}
     * (a process that started ten minutes ago does not hold the last hour).
     */
    boolean holdsSince(String source, long from) {
        SourceWindow window = sources.get(source);
        long oldest = window == null ? 0 : window.oldest();
        return from >= clock.millis() - limits.spanMillis() && oldest != 0 && oldest <= from + COVERAGE_SLACK_MILLIS;
    }

    /** Every source's key numbers, by name. */
    List<KeyNumbers> keyNumbers() {
        var numbers = new ArrayList<KeyNumbers>(sources.size());
        for (SourceWindow window : sources.values()) {
            numbers.add(window.keyNumbers());
        }
        numbers.sort(java.util.Comparator.comparing(KeyNumbers::source));
        return numbers;
    }

    /**
     * The notifier of one source's series, made (empty) on first ask so a client can wait for a
     * source's first points. Callers ask only for sources that exist.
     */
    ChangeNotifier changesOf(String source) {
        return sources.computeIfAbsent(source, name -> new SourceWindow(name, limits, budget, refusedSeries)).changes();
    }

    Optional<SourceWindow> source(String name) {
        return Optional.ofNullable(sources.get(name));
    }

    /** Drops points' series that left the span and sources with none left. */
    void sweep() {
        long cutoff = clock.millis() - limits.spanMillis();
        sources.values().removeIf(window -> window.dropOlderThan(cutoff) && window.changes().waiters() == 0);
        reads.dropOlderThan(cutoff);
    }

    /** Every source's latest read of each metric, and the rows the database views show. */
    LatestReads reads() {
        return reads;
    }

    /** A copy of every source's series and texts, taken one source at a time (each under its own lock). */
    WindowPicture picture() {
        var pictures = new ArrayList<WindowPicture.SourcePicture>(sources.size());
        for (SourceWindow window : sources.values()) {
            WindowPicture.SourcePicture picture = window.picture();
            if (!picture.series().isEmpty() || !picture.texts().isEmpty()) {
                pictures.add(picture);
            }
        }
        return new WindowPicture(clock.millis(), pictures);
    }

    /**
     * Restores a snapshot's points still inside the span (before any measurement is recorded);
     * returns how many points it took.
     */
    long restore(WindowPicture picture) {
        long cutoff = clock.millis() - limits.spanMillis();
        long taken = 0;
        for (WindowPicture.SourcePicture source : picture.sources()) {
            taken += sources.computeIfAbsent(source.source(), name -> new SourceWindow(name, limits, budget, refusedSeries))
                    .restore(source, cutoff);
        }
        sweep();
        changes.advanceTo(recorded.incrementAndGet());
        return taken;
    }

    ChangeNotifier changes() {
        return changes;
    }

    MemoryBudget budget() {
        return budget;
    }

    WindowLimits limits() {
        return limits;
    }

    long refusedSeries() {
        return refusedSeries.sum();
    }

    int seriesCount() {
        return sources.values().stream().mapToInt(SourceWindow::seriesCount).sum();
    }
}
