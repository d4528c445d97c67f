package io.pgharvest.window;

import java.time.Instant;

/**
 * One statement's cost over a span, summed from the {@code query_stats} deltas of the window.
 *
 * @param queryid the query id ({@code other}: every statement outside the top N, summed)
 * @param dbname the database
 * @param user the role that ran it
 * @param toplevel whether it ran at top level ("true"/"false" as the tag reads)
 * @param calls calls in the span
 * @param totalExecTime execution time in the span, ms
 * @param meanExecTime totalExecTime / calls, ms (null without calls)
 * @param rows rows returned or affected in the span
 * @param sharedBlksRead shared blocks read (not found in shared buffers) in the span
 * @param text the normalized text, or null until {@code query_texts} has read it
 * @param planChangedAt when the statement's plan in this database changed (the window read another
 *     plan hash than the one before) if that was within the span, else null
 * @param runningSessions how many sessions ran it (state active) at the source's newest session
 *     sampling, when that was recent ({@code query_samples}, {@code active_sessions}); 0 otherwise
 *     (always 0 from a store). A statement running now is listed even before its first query_stats
 *     row (with no calls)
 * @param approximate true when a store's sum includes an interval the collector marked approximate
 *     (pg_stat_statements evicted entries, so the deltas may miss calls); null from the window,
 *     which does not keep the mark
 */
public record Statement(String queryid, String dbname, String user, String toplevel, double calls,
        double totalExecTime, Double meanExecTime, double rows, double sharedBlksRead, String text,
        Instant planChangedAt, int runningSessions, Boolean approximate) {

    /** Most execution time first, then by query id: the order of every statement list. */
    public static final java.util.Comparator<Statement> MOST_TIME_FIRST =
            java.util.Comparator.comparingDouble(Statement::totalExecTime).reversed()
                    .thenComparing(Statement::queryid);
}
