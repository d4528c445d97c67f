package io.pgharvest.window;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What answers a range the recent window does not hold: the history readers of the stores the
 * sinks write ({@code io.pgharvest.history} implements it; the window knows no store). Reads never
 * throw for a store that is slow or down: the answer carries the store's error and the rest of the
 * response is served.
 */
public interface StoredHistory {

    /** The store that holds {@code source}'s history, if any. */
    Optional<Store> storeOf(String source);

    /** The source's series of {@code metrics} (every charted metric but query_stats when empty). */
    Answer<Series> series(String source, TimeRange range, Set<String> metrics);

    /** The source's statements summed over the range, most execution time first. */
    Answer<Statement> statements(String source, TimeRange range);

    /** One statement over the range: its text, query_stats series, plans and wait shares. */
    StatementPast statement(String source, String queryid, TimeRange range);

    /**
     * The key numbers of {@code sources} over the range: one read per store for all the sources it
     * holds, each entry naming its store; a store that fails or is slow gives its sources an error
     * naming it (the others still answer), a source no store holds an entry that says so.
     */
    List<KeyNumbers> keyNumbers(TimeRange range, Collection<String> sources);

    /**
     * A store that holds a source's history.
     *
     * @param name the store's name in answers ({@code postgres}, {@code prometheus})
     * @param retention how far back it keeps rows; zero when it cannot tell
     */
    record Store(String name, Duration retention) {
    }

    /**
     * What a store answered.
     *
     * @param store the store's name
     * @param error null, or what went wrong (the store's name, the cause, never a secret)
     * @param items what it read (what it could, when {@code error} is set)
     */
    record Answer<T>(String store, String error, List<T> items) {

        public Answer {
            items = List.copyOf(items);
        }
    }

    /**
     * One statement as a store holds it.
     *
     * @param plans one per run of a plan hash, newest first: the plan read last in the run, when the
     *     run began ({@code changedAt}) and the hash it replaced
     */
    record StatementPast(String store, String error, String text, List<Series> series, List<Plan> plans,
            List<WaitShare> waits) {

        public StatementPast {
            series = List.copyOf(series);
            plans = List.copyOf(plans);
            waits = List.copyOf(waits);
        }
    }
}
