package io.pgharvest.history;

import io.pgharvest.model.Source;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.window.ChartedColumns;
import io.pgharvest.window.KeyNumbers;
import io.pgharvest.window.Series;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.Statement;
import io.pgharvest.window.StoredHistory;
import io.pgharvest.window.TimeRange;
import io.pgharvest.window.WaitShare;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history readers pgharvest runs, answering the window's ranges beyond memory. A source's
 * history is read from the first reader that names it in its {@code sources} or names none
 * (configuration order; derived ones, for every source, in the sinks' order).
 * Each metric is read on its own virtual thread, all within one deadline: a slow or down store
 * answers what it could and names the rest in the answer's error, and the request never waits
 * longer than the deadline. Reads use only the readers' own connections.
 */
final class HistoryReaders implements StoredHistory, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HistoryReaders.class);
    /** The most statements a stored range lists. */
    static final int MAX_STATEMENTS = 200;

    /** A reader and the sources it answers (empty: every source). */
    record Assigned(HistoryReader reader, Set<String> sources) {

        Assigned {
            sources = Set.copyOf(sources);
        }

        boolean answers(String source) {
            return sources.isEmpty() || sources.contains(source);
        }
    }

    private final List<Assigned> readers;
    private final Supplier<ConfigStore> store;
    private final Duration deadline;
    private final ExecutorService reads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("history-read-", 0).factory());

    /** Readers answering every source, the first for all. */
    HistoryReaders(List<HistoryReader> readers, Supplier<ConfigStore> store, Duration deadline) {
        this(store, deadline, readers.stream().map(reader -> new Assigned(reader, Set.of())).toList());
    }

    /** Readers each answering its own sources. */
    static HistoryReaders assigned(List<Assigned> readers, Supplier<ConfigStore> store, Duration deadline) {
        return new HistoryReaders(store, deadline, readers);
    }

    private HistoryReaders(Supplier<ConfigStore> store, Duration deadline, List<Assigned> readers) {
        this.readers = List.copyOf(readers);
        this.store = store;
        this.deadline = deadline;
    }

    List<HistoryReader> readers() {
        return readers.stream().map(Assigned::reader).toList();
    }

    @Override
    public Optional<Store> storeOf(String source) {
        return chosen(source).map(reader -> new Store(reader.store(), reader.retention()));
    }

    private Optional<HistoryReader> chosen(String source) {
        return readers.stream().filter(assigned -> assigned.answers(source)).findFirst().map(Assigned::reader);
    }

    /** The source's reader; asked only for a source {@link #storeOf} has a store for. */
    private HistoryReader reader(String source) {
        return chosen(source).orElseThrow(() -> new IllegalStateException("no history reader for " + source));
    }

    @Override
    public Answer<Series> series(String source, TimeRange range, Set<String> metrics) {
        HistoryReader reader = reader(source);
        var wanted = new ArrayList<String>();
        for (String metric : metrics.isEmpty() ? ChartedColumns.metrics() : metrics) {
            if (!metrics.isEmpty() || !metric.equals(ChartedColumns.QUERY_STATS)) {
                wanted.add(metric);
            }
        }
        wanted.sort(null);
        var tasks = new ArrayList<Callable<List<Series>>>();
        for (String metric : wanted) {
            Map<String, SeriesKind> columns = ChartedColumns.of(metric);
            tasks.add(() -> reader.series(source, range, metric, columns, Map.of()));
        }
        var errors = new ArrayList<String>();
        var series = new ArrayList<Series>();
        List<List<Series>> read = runAll(reader, tasks, wanted, errors);
        read.forEach(series::addAll);
        return new Answer<>(reader.store(), error(reader, errors), withoutSourceTags(source, series));
    }

    @Override
    public Answer<Statement> statements(String source, TimeRange range) {
        HistoryReader reader = reader(source);
        var errors = new ArrayList<String>();
        List<Callable<List<Statement>>> tasks = List.of(() -> reader.statements(source, range, MAX_STATEMENTS));
        List<List<Statement>> read = runAll(reader, tasks, List.of(ChartedColumns.QUERY_STATS), errors);
        return new Answer<>(reader.store(), error(reader, errors), read.isEmpty() ? List.of() : read.getFirst());
    }

    @Override
    public StatementPast statement(String source, String queryid, TimeRange range) {
        HistoryReader reader = reader(source);
        var errors = new ArrayList<String>();
        var what = List.of(ChartedColumns.QUERY_STATS, "query_texts", "query_plans", "query_samples");
        List<Callable<Object>> tasks = List.of(
                () -> reader.series(source, range, ChartedColumns.QUERY_STATS,
                        ChartedColumns.of(ChartedColumns.QUERY_STATS), Map.of("queryid", queryid)),
                () -> reader.text(source, queryid),
                () -> reader.plans(source, queryid, range),
                () -> reader.waits(source, queryid, range));
        List<Object> read = runAll(reader, tasks, what, errors, true);
        @SuppressWarnings("unchecked")
        List<Series> series = read.get(0) == null ? List.of() : (List<Series>) read.get(0);
        @SuppressWarnings("unchecked")
        List<io.pgharvest.window.Plan> plans = read.get(2) == null ? List.of() : (List<io.pgharvest.window.Plan>) read.get(2);
        @SuppressWarnings("unchecked")
        List<WaitShare> waits = read.get(3) == null ? List.of() : (List<WaitShare>) read.get(3);
        return new StatementPast(reader.store(), error(reader, errors), (String) read.get(1),
                withoutSourceTags(source, series), plans, waits);
    }

    @Override
    public List<KeyNumbers> keyNumbers(TimeRange range, Collection<String> sources) {
        var bySource = new TreeMap<String, KeyNumbers>();
        Map<HistoryReader, List<String>> byReader = new IdentityHashMap<>();
        for (String source : sources) {
            chosen(source).ifPresentOrElse(reader -> byReader.computeIfAbsent(reader, r -> new ArrayList<>()).add(source),
                    () -> bySource.put(source, KeyNumbers.none(source, null, "no store holds the history of " + source
                            + " (docs/history.md)")));
        }
        // Every store's one read at once, so a slow store costs the deadline once, not once per store.
        var futures = new IdentityHashMap<HistoryReader, Future<Map<String, KeyNumbers>>>();
        byReader.keySet().forEach(reader -> futures.put(reader, reads.submit(() -> reader.keyNumbers(range))));
        long end = System.nanoTime() + deadline.toNanos();
        byReader.forEach((reader, held) -> {
            var errors = new ArrayList<String>();
            List<Map<String, KeyNumbers>> read = awaitRead(reader, futures.get(reader), end, "key numbers", errors);
            for (String source : held) {
                KeyNumbers numbers = read.isEmpty() ? null : read.getFirst().get(source);
                bySource.put(source, numbers != null ? numbers : KeyNumbers.none(source, reader.store(),
                        errors.isEmpty() ? reader.store() + ": holds no key numbers of " + source + " in the range"
                                : error(reader, errors)));
            }
        });
        return List.copyOf(bySource.values());
    }

    private <T> List<T> runAll(HistoryReader reader, List<? extends Callable<T>> tasks, List<String> what,
            List<String> errors) {
        return runAll(reader, tasks, what, errors, false).stream().filter(java.util.Objects::nonNull).toList();
    }

    /**
     * Runs every read at once and waits for all within the deadline; a read that failed or did not
     * finish gives null (or nothing, unless {@code keepPlaces}) and an error naming it.
     */
    private <T> List<T> runAll(HistoryReader reader, List<? extends Callable<T>> tasks, List<String> what,
            List<String> errors, boolean keepPlaces) {
        var futures = new ArrayList<Future<T>>(tasks.size());
        tasks.forEach(task -> futures.add(reads.submit(task)));
        long end = System.nanoTime() + deadline.toNanos();
        var results = new ArrayList<T>(tasks.size());
        for (int i = 0; i < futures.size(); i++) {
            List<T> result = awaitRead(reader, futures.get(i), end, what.get(i), errors);
            if (!result.isEmpty() || keepPlaces) {
                results.add(result.isEmpty() ? null : result.getFirst());
            }
        }
        return results;
    }

    /** One read's result by the deadline ({@code end}, nanoTime), or nothing and an error naming it. */
    private <T> List<T> awaitRead(HistoryReader reader, Future<T> future, long end, String what, List<String> errors) {
        try {
            T result = future.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            return result == null ? List.of() : List.of(result);
        } catch (TimeoutException e) {
            future.cancel(true);
            errors.add(what + ": no answer within " + deadline);
        } catch (ExecutionException e) {
            String cause = e.getCause() instanceof HistoryReadException read ? read.getMessage()
                    : String.valueOf(e.getCause());
            errors.add(what + ": " + cause);
            if (!(e.getCause() instanceof HistoryReadException)) {
                log.warn("The {} history reader failed reading {}", reader.store(), what, e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            errors.add(what + ": interrupted");
        }
        return List.of();
    }

    /** One line naming the store and every read that failed, or null. */
    private static String error(HistoryReader reader, List<String> errors) {
        if (errors.isEmpty()) {
            return null;
        }
        return reader.store() + ": " + String.join("; ", errors);
    }

    /**
     * The stores keep a row's tags overlaid with the source's own tags; the window keys series by
     * the row's tags alone, so the source's tags (where the store holds the source's value) are taken off.
     */
    private List<Series> withoutSourceTags(String source, List<Series> series) {
        ConfigStore config = store.get();
        Source spec = config == null ? null : config.snapshot().sources().get(source);
        if (spec == null || spec.tags() == null || spec.tags().isEmpty()) {
            return series;
        }
        var out = new ArrayList<Series>(series.size());
        for (Series s : series) {
            var tags = new HashMap<>(s.tags());
            spec.tags().forEach(tags::remove);
            out.add(new Series(s.metric(), s.column(), Map.copyOf(tags), s.kind(), s.store(), s.step(), s.times(),
                    s.values()));
        }
        return out;
    }

    @Override
    public void close() {
        reads.shutdownNow();
        for (HistoryReader reader : readers()) {
            try {
                reader.close();
            } catch (RuntimeException e) {
                log.warn("Closing the {} history reader failed", reader.store(), e);
            }
        }
    }
}
