package io.pgharvest.window;

import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Answers a range from where its data is: the recent window when it holds the source's points
 * from the range's start on, else the store of {@link StoredHistory} that holds the source's
 * history (none when the history package is absent), else the window with what it has.
 */
final class RangeSource {

    static final int MAX_SAMPLES = 100;

    private final RecentWindow window;
    private final StoredHistory history;
    private final Clock clock;

    RangeSource(RecentWindow window, StoredHistory history, Clock clock) {
        this.window = window;
        this.history = history;
        this.clock = clock;
    }

    /**
     * Rejects a range no one can answer: before the window with no store for the source, or before
     * the store's retention.
     *
     * @throws InvalidParameterException naming {@code from}
     */
    void check(String source, TimeRange range) {
        if (window.holdsSince(source, range.from().toEpochMilli())) {
            return;
        }
        Instant now = clock.instant();
        Optional<StoredHistory.Store> store = storeOf(source);
        Duration windowSpan = Duration.ofMillis(window.limits().spanMillis());
        if (store.isEmpty() && range.from().isBefore(now.minus(windowSpan))) {
            throw new InvalidParameterException(List.of(new FieldProblem("from", "is before the recent window ("
                    + windowSpan + ") and no store holds the history of " + source + " (docs/history.md: a postgres"
                    + " sink or a pgharvest.history entry)")));
        }
        if (store.isPresent() && !store.get().retention().isZero()
                && range.from().isBefore(now.minus(store.get().retention()))) {
            throw new InvalidParameterException(List.of(new FieldProblem("from", "is past the " + store.get().name()
                    + " store's retention (" + store.get().retention() + "): it holds rows from "
                    + now.minus(store.get().retention()) + " on")));
        }
    }

    WindowController.SourceSeries series(String source, TimeRange range, Set<String> metrics, Duration windowSpan) {
        Optional<StoredHistory.Store> store = answeringStore(source, range);
        if (store.isEmpty()) {
            List<Series> series = window.read(source, range.from().toEpochMilli(), range.to().toEpochMilli(), metrics);
            return new WindowController.SourceSeries(source, range.from(), range.to(), windowSpan, Series.storeOf(series),
                    null, null, series);
        }
        StoredHistory.Answer<Series> answer = history.series(source, range, metrics);
        return new WindowController.SourceSeries(source, range.from(), range.to(), windowSpan, answer.store(),
                range.step(), answer.error(), answer.items());
    }

    WindowController.SourceStatements statements(String source, TimeRange range, String dbname, Duration windowSpan) {
        Optional<StoredHistory.Store> store = answeringStore(source, range);
        String name = Series.WINDOW;
        String error = null;
        List<Statement> statements;
        if (store.isEmpty()) {
            // Sessions running now count only for a range that ends now.
            long now = clock.millis();
            long runningAt = range.to().toEpochMilli() >= now - SourceWindow.RUNNING_FRESH_MILLIS ? now : Long.MAX_VALUE;
            statements = window.source(source)
                    .map(w -> w.statements(range.from().toEpochMilli(), range.to().toEpochMilli(), runningAt))
                    .orElse(List.of()).stream().filter(s -> s.calls() > 0 || s.totalExecTime() > 0).toList();
            if (window.source(source).map(w -> w.restoredSince(range.from().toEpochMilli(), SourceWindow.QUERY_STATS))
                    .orElse(false)) {
                name = Series.SNAPSHOT;
            }
        } else {
            StoredHistory.Answer<Statement> answer = history.statements(source, range);
            name = answer.store();
            error = answer.error();
            statements = answer.items();
        }
        return new WindowController.SourceStatements(source, range.from(), range.to(), windowSpan, name, error,
                statements.stream().filter(s -> dbname == null || dbname.equals(s.dbname()))
                        .sorted(Statement.MOST_TIME_FIRST).toList());
    }

    WindowController.StatementHistory statement(String source, String queryid, TimeRange range, Duration windowSpan) {
        if (answeringStore(source, range).isEmpty()) {
            return statementFromWindow(source, queryid, range.from(), range.to(), windowSpan);
        }
        StoredHistory.StatementPast past = history.statement(source, queryid, range);
        return new WindowController.StatementHistory(source, queryid, past.text(), range.from(), range.to(),
                windowSpan, past.store(), range.step(), past.error(), past.series(), List.of(), past.plans(),
                past.waits());
    }

    /** One statement as the window holds it from {@code from} to {@code to}. */
    WindowController.StatementHistory statementFromWindow(String source, String queryid, Instant from, Instant to,
            Duration windowSpan) {
        long fromMillis = from.toEpochMilli();
        long toMillis = to.toEpochMilli();
        List<Series> series = window.read(source, fromMillis, toMillis, Set.of(SourceWindow.QUERY_STATS)).stream()
                .filter(s -> queryid.equals(s.tags().get("queryid"))).toList();
        var found = window.source(source);
        return new WindowController.StatementHistory(source, queryid, found.map(w -> w.text(queryid)).orElse(null),
                from, to, windowSpan, Series.storeOf(series), null, null, series,
                found.map(w -> w.samples(fromMillis, toMillis, queryid, MAX_SAMPLES)).orElse(List.of()),
                found.map(w -> w.plans(queryid)).orElse(List.of()),
                WaitShare.ofSamples(found.map(w -> w.samples(fromMillis, toMillis, queryid, Integer.MAX_VALUE))
                        .orElse(List.of())));
    }

    /** The store that answers the range, or empty when the window does. */
    private Optional<StoredHistory.Store> answeringStore(String source, TimeRange range) {
        if (window.holdsSince(source, range.from().toEpochMilli())) {
            return Optional.empty();
        }
        return storeOf(source);
    }

    private Optional<StoredHistory.Store> storeOf(String source) {
        return history == null ? Optional.empty() : history.storeOf(source);
    }
}
