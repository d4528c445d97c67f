package io.pgharvest.kind.postgres;

import io.pgharvest.kind.AloneRun;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.kind.RoundTrip;
import io.pgharvest.model.sql.ExtensionNames;
import io.pgharvest.model.sql.MetricSql;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Sends several metric queries to PostgreSQL in ONE network round trip.
 *
 * <p>The queries are joined into one multi-statement query of pgjdbc's: it sends a
 * Parse/Bind/Execute per statement and a single Sync, so the server answers all of them at once. The statement is kept per combination of metrics (a tick with
 * intervals 2 s and 3 s sees three combinations), so after pgjdbc's prepare threshold the server
 * reuses its plans instead of parsing and planning every query on every tick.
 *
 * <p>In such a pipeline the first failing statement makes the server skip all later ones. A
 * pgjdbc statement then reports the error and NO result, not even for the statements before it,
 * so the round trip is run through pgjdbc's query executor with a handler of our own
 * ({@link PartCollector}): {@link #runKeeping} returns the rows of the statements that completed
 * and names the one that failed (its own error, its timeout, a result past the limits); the
 * caller delivers the rows and sends the statements that never ran again. On a saturated server
 * an overrun then costs one metric, not the tick (issue 51).
 *
 * <p>Metrics with their own statement timeout are grouped by it. Every metric after the first
 * is preceded by a {@code set_config('statement_timeout', ..., true)} call: the setting is
 * transaction-local, so the round trip's transaction ends it, and setting it before each metric
 * means no metric can switch it off for the ones after it. pgharvest's own deadline
 * ({@link RoundTripDeadline}) bounds the round trip besides, whatever happens on the server.
 *
 * <p>Read-only boundary (docs/security.md): every round trip is framed as
 * {@code BEGIN READ ONLY; <metrics>; <advisory unlock>; ROLLBACK}, one transaction. Each metric is
 * its own Parse message of {@code select * from (<metric>) as metric} ({@link OneSelect}), so the
 * server itself refuses a second command, utility commands and writing statements; the
 * transaction is read-only from its first statement (a metric cannot turn that off once a
 * snapshot exists); the unlock releases session advisory locks and the ROLLBACK undoes whatever a
 * metric changed in the session (set_config, a role set through it). A failed round trip leaves
 * the transaction aborted; it is rolled back and the locks released before the session is used
 * again. Before anything is sent, each metric's SQL must pass pgharvest's friendly check
 * ({@link MetricSql}), also SQL stored before that rule existed: it says early why a metric is
 * refused, but the boundary does not depend on it.
 *
 * <p>Extensions' objects: the session searches pg_catalog only, so a metric's unqualified name of
 * an object of an installed extension ({@code pg_stat_statements}) is sent qualified with the
 * schema the object is in ({@link ExtensionNames}), once per text and session's set of extensions
 * (a verdict, like the check). A round trip that sends such a name starts with the
 * {@link ExtensionObjects#guard}; when it fails, the session reads its extensions again
 * ({@link SessionTexts.ExtensionReader}) and the round trip is sent once more with the names it
 * finds.
 *
 * <p>This class assembles each round trip in its frame ({@link ReadOnlyFrame}) and reads the
 * answers back as the metrics' rows; what lives as long as the session is in its parts:
 * {@link SessionStatements} (the prepared statements, read timeout and byte bound, and running a
 * round trip through them) and {@link SessionTexts} (what each metric text is sent as, for the
 * session's extensions).
 *
 * <p>Not thread-safe: owned by one reaper's {@link PostgresSession}.
 */
final class QueryPipeline implements AutoCloseable {

    /** pgharvest's own check of a metric, the one sessions use unless a test says otherwise. */
    private static final Function<String, Optional<String>> FRIENDLY_CHECK = MetricSql::problem;

    private final Duration sessionStatementTimeout;
    /** The session's server-side statements, read timeout and byte bound. */
    private final SessionStatements statements;
    /** What each metric text is sent as, for the session's extensions' objects. */
    private final SessionTexts texts;

    /**
     * @param minNetworkTimeout the client-side read timeout when the statements' own limits
     *     add up to less (pgharvest.reaper.socket-timeout)
     */
    public QueryPipeline(Connection connection, Duration sessionStatementTimeout, Duration minNetworkTimeout) {
        this(connection, sessionStatementTimeout, minNetworkTimeout, FRIENDLY_CHECK);
    }

    /**
     * @param limits rows and bytes one metric may return (pgharvest.reaper.max-result-rows and -bytes)
     * @param bound the session's stream, armed with {@code limits.maxBytes()}; it reports the result it cut
     */
    QueryPipeline(Connection connection, Duration sessionStatementTimeout, Duration minNetworkTimeout,
            ResultLimits limits, ResultBytesBound bound) {
        this(connection, sessionStatementTimeout, minNetworkTimeout, FRIENDLY_CHECK, limits, bound);
    }

    /**
     * @param friendlyCheck pgharvest's own reading of a metric (why it is refused, or empty); the
     *     server's boundary holds without it, which tests show by leaving it out
     */
    public QueryPipeline(Connection connection, Duration sessionStatementTimeout, Duration minNetworkTimeout,
            Function<String, Optional<String>> friendlyCheck) {
        this(connection, sessionStatementTimeout, minNetworkTimeout, friendlyCheck, ResultLimits.DEFAULT,
                ResultBytesBound.NONE);
    }

    private QueryPipeline(Connection connection, Duration sessionStatementTimeout, Duration minNetworkTimeout,
            Function<String, Optional<String>> friendlyCheck, ResultLimits limits, ResultBytesBound bound) {
        this.sessionStatementTimeout = sessionStatementTimeout;
        this.statements = new SessionStatements(connection, minNetworkTimeout, limits, bound);
        this.texts = new SessionTexts(friendlyCheck, statements);
    }

    /**
     * Runs {@code queries} in one round trip and returns their rows in the same order.
     *
     * @throws SQLException if any statement failed; no result is returned then
     */
    public List<FetchedRows> run(List<MetricQuery> queries) throws SQLException {
        RoundTrip trip = runKeeping(queries);
        if (trip.failure() != null) {
            throw trip.failure();
        }
        return trip.rows();
    }

    /**
     * Runs {@code queries} in one round trip and keeps what the server answered before a failure
     * ({@link RoundTrip}): the statements before the failing one completed and their rows are
     * delivered; the failing one is named (a metric's own error, its timeout, a result past the
     * limits); the ones after it never ran. Refusals known before sending fail the whole round trip,
     * unsent, as {@link #run} always did.
     */
    public RoundTrip runKeeping(List<MetricQuery> queries) {
        if (queries.isEmpty()) {
            return RoundTrip.whole(List.of());
        }
        RoundTrip trip = runKeepingOnce(queries);
        if (trip.failure() != null && ExtensionObjects.isGuardFailure(trip.failure())) {
            // The session's extensions changed: read them again, send once more with their names.
            try {
                texts.rereadExtensions(trip.failure());
            } catch (SQLException e) {
                return RoundTrip.nothing(queries.size(), e);
            }
            trip = runKeepingOnce(queries);
        }
        return trip;
    }

    private RoundTrip runKeepingOnce(List<MetricQuery> queries) {
        var named = new LinkedHashSet<ExtensionNames.Member>();
        try {
            for (MetricQuery query : queries) {
                refuseIfNotReading(query);
                named.addAll(texts.named(query));
            }
            statements.allowSilenceFor(queries);
        } catch (SQLException e) {
            return RoundTrip.nothing(queries.size(), e);
        }
        // Metrics under the session's own limit first (the first of them needs no set_config),
        // then by limit. Each set_config is transaction-local: the ROLLBACK ends it, no reset.
        Integer[] order = new Integer[queries.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> timeoutKey(queries.get(i))));
        var parts = new ArrayList<String>();
        parts.add(ReadOnlyFrame.BEGIN);
        int guardPart = -1;
        if (!named.isEmpty()) {
            guardPart = parts.size();
            parts.add(texts.guard(named));
        }
        int[] partOfQuery = new int[queries.size()];
        Duration budget = Duration.ZERO;
        boolean first = true;
        for (int index : order) {
            MetricQuery query = queries.get(index);
            // The session's limit holds for the first metric; every later one sets its limit
            // again, since the metric before it may have switched it off (set_config assembled
            // for query_to_xml, or inside a function) for the rest of the transaction.
            if (!first || !query.statementTimeout().equals(sessionStatementTimeout)) {
                parts.add(ReadOnlyFrame.setTimeout(query.statementTimeout()));
            }
            first = false;
            partOfQuery[index] = parts.size();
            parts.add(texts.sent(query));
            budget = budget.plus(query.statementTimeout());
        }
        parts.add(ReadOnlyFrame.CLEANUP);
        parts.add(ReadOnlyFrame.ROLLBACK);
        PartCollector.Answers answers;
        try {
            answers = statements.execute(parts, budget);
        } catch (SQLException e) {
            return RoundTrip.nothing(queries.size(), e); // the statement could not even be prepared
        }
        var rows = new ArrayList<FetchedRows>(queries.size());
        for (int part : partOfQuery) {
            rows.add(answers.completed(part) && part != answers.refusedPart() ? answers.parts().get(part) : null);
        }
        if (answers.failure() == null) {
            if (answers.parts().size() != parts.size()) {
                // A metric's SQL held several statements: results cannot be attributed. Refusing
                // makes the caller run the queries one by one, where each gets its last result.
                return RoundTrip.nothing(queries.size(), new PipelineShapeException(parts.size(), answers.parts().size()));
            }
            if (answers.refusedPart() < 0) {
                return RoundTrip.whole(rows);
            }
        }
        int failedPart = answers.refusedPart() >= 0 ? answers.refusedPart() : answers.parts().size();
        // The guard's failure is the session's, never the metric's after it.
        int failedAt = failedPart == guardPart ? -1 : queryAt(partOfQuery, failedPart);
        SQLException failure = answers.failure();
        if (answers.refusedPart() >= 0) {
            // Too many rows or bytes: the server ran everything, only that metric is dropped.
            failure = answers.tooLarge().of(failedAt < 0 ? null : queries.get(failedAt).metric());
        }
        return new RoundTrip(rows, failure, failedAt);
    }

    /**
     * The query whose statement is part {@code part}, or whose time limit part {@code part} sets (a
     * {@code set_config} runs right before its metric); -1 for pgharvest's own framing.
     */
    private static int queryAt(int[] partOfQuery, int part) {
        for (int i = 0; i < partOfQuery.length; i++) {
            if (partOfQuery[i] == part) {
                return i;
            }
        }
        for (int i = 0; i < partOfQuery.length; i++) {
            if (part > 0 && partOfQuery[i] == part + 1) {
                return i;
            }
        }
        return -1;
    }

    /** The session's own limit sorts first; the others by length. */
    private long timeoutKey(MetricQuery query) {
        return query.statementTimeout().equals(sessionStatementTimeout) ? -1 : query.statementTimeout().toMillis();
    }

    /**
     * Runs one query alone (still one round trip, with its timeout).
     *
     * @return its rows (the last result when its SQL held several statements), and whether it
     *     did: such a metric can never share a pipeline
     */
    public AloneRun runAlone(MetricQuery query) throws SQLException {
        try {
            return runAloneOnce(query);
        } catch (SQLException e) {
            if (!ExtensionObjects.isGuardFailure(e)) {
                throw e;
            }
            texts.rereadExtensions(e);
            return runAloneOnce(query);
        }
    }

    private AloneRun runAloneOnce(MetricQuery query) throws SQLException {
        refuseIfNotReading(query);
        statements.allowSilenceFor(List.of(query));
        boolean ownTimeout = !query.statementTimeout().equals(sessionStatementTimeout);
        // The transaction-local setting ends with the round trip's transaction.
        var parts = new ArrayList<String>();
        parts.add(ReadOnlyFrame.BEGIN);
        Set<ExtensionNames.Member> named = texts.named(query);
        if (!named.isEmpty()) {
            parts.add(texts.guard(named));
        }
        if (ownTimeout) {
            parts.add(ReadOnlyFrame.setTimeout(query.statementTimeout()));
        }
        parts.add(texts.sent(query));
        parts.add(ReadOnlyFrame.CLEANUP);
        parts.add(ReadOnlyFrame.ROLLBACK);
        PartCollector.Answers answers = statements.execute(parts, query.statementTimeout());
        if (answers.failure() != null) {
            throw answers.failure();
        }
        if (answers.refusedPart() >= 0) {
            throw answers.tooLarge().of(query.metric());
        }
        if (answers.parts().size() != parts.size()) {
            throw new PipelineShapeException(parts.size(), answers.parts().size());
        }
        return new AloneRun(answers.parts().get(parts.size() - 3), false);
    }

    /**
     * Refuses SQL that is not one reading statement, before it is sent: the
     * store checks metrics when they are defined, but files written by hand or by an older
     * version reach the engine too.
     */
    private void refuseIfNotReading(MetricQuery query) throws SQLException {
        NotReadingException refused = refusal(query);
        if (refused != null) {
            throw refused;
        }
    }

    /** Why {@code query} would be refused without being sent, or null when it may be sent. */
    NotReadingException refusal(MetricQuery query) {
        return texts.refusal(query);
    }

    /**
     * The metric's own text as sent, without {@link OneSelect}'s wrapping: its SQL with the names of
     * extension objects qualified (error positions count in it). Its SQL when it is refused.
     */
    String sentText(MetricQuery query) {
        return texts.sentText(query);
    }

    /** The session's extensions' objects, as read when it opened or when they changed. */
    void useExtensions(ExtensionObjects objects, SessionTexts.ExtensionReader reader) {
        texts.useExtensions(objects, reader);
    }

    @Override
    public void close() {
        statements.close();
    }
}
