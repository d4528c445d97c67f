package io.pgharvest.kind;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one round trip of several queries brought back, also when it failed part-way. PostgreSQL
 * runs a pipeline's statements in order and stops at the first that fails: the ones before it have
 * sent their rows by then, the ones after it never ran. A round trip that overruns or meets an
 * error therefore need not cost the tick the rows it already has, and the queries after the
 * failing one can be sent again at no cost to the server ({@link SourceSession#runKeeping}).
 *
 * @param rows one entry per query sent, in the caller's order: its rows, or null where the query
 *     failed or did not run
 * @param failure why the round trip did not end whole, or null when every query delivered
 * @param failedAt the index of the query the failure belongs to, or -1 when the session cannot
 *     tell (then every query without rows is under suspicion) or the failure was in none of them
 */
public record RoundTrip(List<FetchedRows> rows, SQLException failure, int failedAt) {

    public RoundTrip {
        rows = Collections.unmodifiableList(new ArrayList<>(rows)); // nulls allowed: List.copyOf refuses them
        if (failure == null && rows.contains(null)) {
            throw new IllegalArgumentException("a whole round trip has rows for every query");
        }
        if (failedAt < -1 || failedAt >= rows.size() || failedAt >= 0 && rows.get(failedAt) != null) {
            throw new IllegalArgumentException("failedAt " + failedAt + " is not a query without rows");
        }
    }

    /** Every query delivered. */
    public static RoundTrip whole(List<FetchedRows> rows) {
        return new RoundTrip(rows, null, -1);
    }

    /** Nothing came back, and the session cannot tell which query failed. */
    public static RoundTrip nothing(int queries, SQLException failure) {
        return new RoundTrip(Collections.nCopies(queries, null), failure, -1);
    }

    /** Whether the session named the query the failure belongs to. */
    public boolean knowsFailedQuery() {
        return failedAt >= 0;
    }
}
