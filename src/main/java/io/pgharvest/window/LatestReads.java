package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.ChangeNotifier;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Each source's latest read of every metric (when, how many rows), and the rows of the latest read
 * of the metrics the database views show ({@link #KEPT}: sessions, locks, tables, indexes,
 * wraparound, replication), compact: only the columns the views read ({@link ViewRows}). Only the
 * latest read is kept, at most {@link #MAX_ROWS} rows of it, reserved against the window's
 * {@link MemoryBudget}: a read that does not fit keeps its time and row count, not its rows, and is
 * counted. Written by the window's one feed thread, read by API requests through immutable
 * {@link Reading}s. Each source's notifier advances with every read.
 */
final class LatestReads {

    /** The metrics whose latest rows are kept for the views, with the columns the views read of them. */
    static final Map<String, ViewRows.Columns> KEPT = ViewRows.merged(List.of(SessionsView.COLUMNS,
            TablesView.COLUMNS, IndexesView.COLUMNS, ServerViews.COLUMNS));
    /** The most rows of one read kept (the built-in metrics return at most 300). */
    static final int MAX_ROWS = 1000;

    private final MemoryBudget budget;
    private final Map<String, SourceReads> sources = new ConcurrentHashMap<>();
    private final LongAdder refusedReads = new LongAdder();
    /** What the kept rows of every source hold reserved: their share of the budget. */
    private final AtomicLong keptBytes = new AtomicLong();

    LatestReads(MemoryBudget budget) {
        this.budget = budget;
    }

    /** The reads of one source: metric to latest reading, and the notifier of its views. */
    record SourceReads(Map<String, Reading> byMetric, ChangeNotifier changes) {

        Optional<Reading> of(String metric) {
            return Optional.ofNullable(byMetric.get(metric));
        }

        Instant newest() {
            return byMetric.values().stream().map(Reading::at).max(Instant::compareTo).orElse(Instant.EPOCH);
        }
    }

    /** Keeps {@code m} as its source's latest read of its metric, replacing (and releasing) the one before. */
    void record(Measurement m) {
        SourceReads reads = readsOf(m.source());
        ViewRows rows = ViewRows.EMPTY;
        boolean refused = false;
        ViewRows.Columns columns = KEPT.get(m.metric());
        if (columns != null) {
            ViewRows kept = ViewRows.compact(columns, m.rows().size() > MAX_ROWS ? m.rows().subList(0, MAX_ROWS) : m.rows());
            if (budget.reserve(kept.bytes())) {
                rows = kept;
                keptBytes.addAndGet(kept.bytes());
            } else {
                refusedReads.increment();
                refused = true;
            }
        }
        Reading before = reads.byMetric().put(m.metric(), new Reading(m.metric(), m.time(), m.rows().size(), rows, refused));
        if (before != null) {
            release(before);
        }
        reads.changes().advanceTo(reads.changes().index() + 1);
    }

    /** The reads of {@code source}, made (empty) on first ask so a client can wait for its first read. */
    SourceReads readsOf(String source) {
        return sources.computeIfAbsent(source, name -> new SourceReads(new ConcurrentHashMap<>(), new ChangeNotifier(0)));
    }

    Optional<SourceReads> find(String source) {
        return Optional.ofNullable(sources.get(source));
    }

    /** Forgets sources whose newest read is before {@code cutoffMillis} and that nobody waits on. */
    void dropOlderThan(long cutoffMillis) {
        sources.values().removeIf(reads -> {
            boolean old = reads.newest().toEpochMilli() < cutoffMillis && reads.changes().waiters() == 0;
            if (old) {
                reads.byMetric().values().forEach(this::release);
            }
            return old;
        });
    }

    private void release(Reading reading) {
        budget.release(reading.bytes());
        keptBytes.addAndGet(-reading.bytes());
    }

    /** The bytes the kept rows hold reserved against the budget (the rest is series, samples, texts, plans). */
    long keptBytes() {
        return keptBytes.get();
    }

    long refusedReads() {
        return refusedReads.sum();
    }
}
