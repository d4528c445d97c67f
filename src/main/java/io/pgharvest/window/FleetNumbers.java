package io.pgharvest.window;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fleet's key numbers over a range: from memory for the sources the recent window holds since
 * the range's start, else from the stores, one read per store for the whole fleet ({@link StoredHistory}).
 * Over a range a number means what {@link KeyNumbers} says (mean rate, mean and peak sessions,
 * last size, highest lag), computed alike from the window's points and in the stores.
 */
final class FleetNumbers {

    private static final Set<String> METRICS = Set.of("db_stats", "backends", "db_size", "replication",
            "wal_receiver");

    private final RecentWindow window;
    private final StoredHistory history;
    private final Clock clock;

    FleetNumbers(RecentWindow window, StoredHistory history, Clock clock) {
        this.window = window;
        this.history = history;
        this.clock = clock;
    }

    /**
     * Each source from memory when the window holds it since the range's start (as a source page's
     * charts decide), else from the stores in one read for all such sources: after a restart the
     * last hour is within the window's span but not in it, and the store has it. A source no store
     * holds keeps whatever of the range the window has.
     */
    List<KeyNumbers> over(TimeRange range, Collection<String> sources) {
        long from = range.from().toEpochMilli();
        var stored = new ArrayList<String>();
        for (String source : sources) {
            if (history != null && !window.holdsSince(source, from)) {
                stored.add(source);
            }
        }
        Map<String, KeyNumbers> fromStores = new HashMap<>();
        if (!stored.isEmpty()) {
            history.keyNumbers(range, stored).forEach(numbers -> fromStores.put(numbers.source(), numbers));
        }
        boolean inSpan = from >= clock.millis() - window.limits().spanMillis();
        var numbers = new ArrayList<KeyNumbers>(sources.size());
        for (String source : sources) {
            KeyNumbers held = fromStores.get(source);
            List<Series> series = held != null && !held.noNumber() ? List.of()
                    : window.read(source, from, range.to().toEpochMilli(), METRICS);
            if (!series.isEmpty()) {
                numbers.add(ofPoints(source, series)); // the window's part: better than a store's nothing
            } else if (held != null) {
                numbers.add(held);
            } else {
                numbers.add(inSpan ? ofPoints(source, series) : KeyNumbers.none(source, null,
                        "the range starts before the recent window (" + Duration.ofMillis(window.limits().spanMillis())
                                + ") and no store holds history"));
            }
        }
        return numbers;
    }

    /** The window's points over the range as the stores compute them. */
    static KeyNumbers ofPoints(String source, List<Series> series) {
        Double commits = sumOfMeans(series, "db_stats", "xact_commit");
        Double rollbacks = sumOfMeans(series, "db_stats", "xact_rollback");
        String sessions = has(series, "backends", "total") ? "backends" : "db_stats";
        String sessionColumn = sessions.equals("backends") ? "total" : "numbackends";
        boolean primaryLag = has(series, "replication", "replay_lag_b");
        String lagMetric = primaryLag ? "replication" : "wal_receiver";
        String lagColumn = primaryLag ? "replay_lag_b" : "unreplayed_b";
        return new KeyNumbers(source, commits == null ? null : commits + (rollbacks == null ? 0 : rollbacks),
                mean(series, sessions, sessionColumn), peak(series, sessions, sessionColumn),
                last(series, "db_size", "size_b"), peak(series, lagMetric, lagColumn), null, Series.storeOf(series),
                null);
    }

    private static boolean has(List<Series> series, String metric, String column) {
        return series.stream().anyMatch(s -> s.metric().equals(metric) && s.column().equals(column)
                && s.values().length > 0);
    }

    /** The rows' rates each averaged over their points, summed over rows (a database's series). */
    private static Double sumOfMeans(List<Series> series, String metric, String column) {
        Double sum = null;
        for (Series s : series) {
            if (s.metric().equals(metric) && s.column().equals(column) && s.values().length > 0) {
                double total = 0;
                for (double v : s.values()) {
                    total += v;
                }
                sum = (sum == null ? 0 : sum) + total / s.values().length;
            }
        }
        return sum;
    }

    private static Double mean(List<Series> series, String metric, String column) {
        return sumOfMeans(series, metric, column);
    }

    private static Double peak(List<Series> series, String metric, String column) {
        Double max = null;
        for (Series s : series) {
            if (s.metric().equals(metric) && s.column().equals(column)) {
                for (double v : s.values()) {
                    max = max == null ? v : Math.max(max, v);
                }
            }
        }
        return max;
    }

    private static Double last(List<Series> series, String metric, String column) {
        Double sum = null;
        for (Series s : series) {
            if (s.metric().equals(metric) && s.column().equals(column) && s.values().length > 0) {
                sum = (sum == null ? 0 : sum) + s.values()[s.values().length - 1];
            }
        }
        return sum;
    }
}
