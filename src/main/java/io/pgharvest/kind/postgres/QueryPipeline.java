package io.pgharvest.kind.postgres;

import io.pgharvest.kind.AloneRun;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.model.sql.ExtensionNames;
import io.pgharvest.model.sql.MetricSql;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.pgharvest.kind.RoundTrip;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.BaseStatement;
import org.postgresql.core.CachedQuery;
import org.postgresql.core.QueryExecutor;

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
 * ({@link ExtensionReader}) and the round trip is sent once more with the names it finds.
 *
 * <p>Not thread-safe: owned by one reaper's {@link PostgresSession}.
 */
final class QueryPipeline implements AutoCloseable {

    /**
     * Statements kept per session. Each holds the joined SQL of its combination of metrics twice
     * (our text and pgjdbc's parsed copy) plus result metadata, so this bounds per-source memory;
     * a source whose combinations rotate through more than this (instance-level results reused
     * on some ticks only) gets no server-side plan reuse from the extra ones either way.
     */
    private static final int CACHED_STATEMENTS = 8;
    private static final String SEPARATOR = "\n;\n";
    private static final String BEGIN = "begin transaction read only";
    private static final String ROLLBACK = "rollback";
    /**
     * Last statement before the ROLLBACK, in the same round trip and transaction: undoes the one
     * thing a SELECT can leave in its session that a rollback does not (session advisory locks
     * outlive the transaction; settings, roles, temporary objects, cursors and LISTEN do not).
     * An int column, not the function's void: pgjdbc would look the void type up in the catalog
     * (one more round trip and transaction) the first time it reads the result.
     */
    private static final String CLEANUP = "select 0 as released from pg_advisory_unlock_all()";
    /** pgharvest's own check of a metric, the one sessions use unless a test says otherwise. */
    private static final Function<String, Optional<String>> FRIENDLY_CHECK = MetricSql::problem;
    /** Room for network and server overhead on top of the statements' own time limits. */
    private static final Duration NETWORK_MARGIN = Duration.ofSeconds(30);

    private final Connection connection;
    private final Duration sessionStatementTimeout;
    private final Duration minNetworkTimeout;
    /**
     * Keyed by the statements' texts as a list, not by the joined text: the lookup on every tick
     * compares the (shared) metric SQL strings by reference and hash instead of joining and
     * hashing tens of kilobytes.
     */
    private final Map<List<String>, Prepared> statements = new LinkedHashMap<>(16, 0.75f, true);
    /** What each metric text may be sent as on this session ({@link MetricVerdicts}). */
    private final MetricVerdicts verdicts;
    /** The session's extensions' objects; the own verdicts hold for these. */
    private ExtensionObjects extensions = ExtensionObjects.NONE;
    private ExtensionReader extensionReader = () -> ExtensionObjects.NONE;
    private long networkTimeoutMillis = -1;
    private final ResultLimits limits;
    /** The stream this session's results arrive through, which cuts a result past the byte limit. */
    private final ResultBytesBound bound;
    /** Turns a round trip's rows into result sets ({@link #statementForResults}); made on first use. */
    private BaseStatement resultFactory;

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
        this.limits = limits;
        this.bound = bound;
        this.connection = connection;
        this.sessionStatementTimeout = sessionStatementTimeout;
        this.minNetworkTimeout = minNetworkTimeout;
        this.verdicts = new MetricVerdicts(friendlyCheck, List.of(BEGIN, ROLLBACK), SEPARATOR);
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
                rereadExtensions(trip.failure());
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
                named.addAll(verdictOf(query.sql()).named());
            }
            allowNetworkSilenceFor(queries);
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
        parts.add(BEGIN);
        int guardPart = -1;
        if (!named.isEmpty()) {
            guardPart = parts.size();
            parts.add(extensions.guard(named));
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
                parts.add(setTimeout(query.statementTimeout()));
            }
            first = false;
            partOfQuery[index] = parts.size();
            parts.add(sent(query));
            budget = budget.plus(query.statementTimeout());
        }
        parts.add(CLEANUP);
        parts.add(ROLLBACK);
        Answers answers;
        try {
            answers = execute(parts, budget);
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
            rereadExtensions(e);
            return runAloneOnce(query);
        }
    }

    private AloneRun runAloneOnce(MetricQuery query) throws SQLException {
        refuseIfNotReading(query);
        allowNetworkSilenceFor(List.of(query));
        boolean ownTimeout = !query.statementTimeout().equals(sessionStatementTimeout);
        // The transaction-local setting ends with the round trip's transaction.
        var parts = new ArrayList<String>();
        parts.add(BEGIN);
        Set<ExtensionNames.Member> named = verdictOf(query.sql()).named();
        if (!named.isEmpty()) {
            parts.add(extensions.guard(named));
        }
        if (ownTimeout) {
            parts.add(setTimeout(query.statementTimeout()));
        }
        parts.add(sent(query));
        parts.add(CLEANUP);
        parts.add(ROLLBACK);
        Answers answers = execute(parts, query.statementTimeout());
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
        MetricVerdicts.Verdict verdict = verdictOf(query.sql());
        return verdict.problem() == null ? null : new NotReadingException(query.metric(), verdict.problem());
    }

    /** The text sent for {@code query} (kept per SQL text: the same strings every tick). */
    private String sent(MetricQuery query) {
        return verdictOf(query.sql()).sent();
    }

    /**
     * The metric's own text as sent, without {@link OneSelect}'s wrapping: its SQL with the names of
     * extension objects qualified (error positions count in it). Its SQL when it is refused.
     */
    String sentText(MetricQuery query) {
        MetricVerdicts.Verdict verdict = verdictOf(query.sql());
        return verdict.qualified() == null ? query.sql() : verdict.qualified();
    }

    /**
     * Where the session's extensions are read again when the guard finds they changed.
     */
    @FunctionalInterface
    interface ExtensionReader {
        ExtensionObjects read() throws SQLException;
    }

    /** The session's extensions' objects, as read when it opened or when they changed. */
    void useExtensions(ExtensionObjects objects, ExtensionReader reader) {
        this.extensionReader = reader;
        if (objects != extensions) {
            extensions = objects;
            verdicts.forget(); // texts qualified with the names that were
        }
    }

    private void rereadExtensions(SQLException guardFailure) throws SQLException {
        try {
            useExtensions(extensionReader.read(), extensionReader);
        } catch (SQLException e) {
            e.addSuppressed(guardFailure);
            throw e;
        }
    }

    /** The names of the session's extensions' objects its texts are qualified with. */
    ExtensionNames extensionNames() {
        return extensions.names();
    }

    private MetricVerdicts.Verdict verdictOf(String sql) {
        return verdicts.of(sql, readsBackslashesAsStandard(), extensions.names());
    }

    /**
     * How this session's driver reads backslashes in literals. Only a closed session cannot say,
     * and it sends nothing either way: its verdicts are those of PostgreSQL's default.
     */
    private boolean readsBackslashesAsStandard() {
        try {
            return standardConformingStrings();
        } catch (SQLException e) {
            return true;
        }
    }

    /**
     * The server answers a pipeline only at its end, so the socket may rightly stay silent for
     * the sum of the statements' time limits; the client-side read timeout must not cut that
     * short (it would look like a lost session and the tick would be lost every time).
     */
    private void allowNetworkSilenceFor(List<MetricQuery> queries) throws SQLException {
        Duration sum = NETWORK_MARGIN;
        for (MetricQuery query : queries) {
            sum = sum.plus(query.statementTimeout());
        }
        long wanted = Math.max(minNetworkTimeout.toMillis(), sum.toMillis());
        if (wanted != networkTimeoutMillis) {
            connection.setNetworkTimeout(Runnable::run, (int) Math.min(wanted, Integer.MAX_VALUE));
            networkTimeoutMillis = wanted;
        }
    }

    /**
     * Runs {@code parts} within {@code budget} (the sum of their metrics' limits) by pgharvest's
     * own clock as well as the server's ({@link RoundTripDeadline}), and returns what the server
     * answered: every part's result up to the first that failed, and that failure. Through pgjdbc's
     * query executor with a handler of our own ({@link PartCollector}), because its statements keep
     * nothing of a round trip that failed, not even the results that arrived before the error.
     */
    private Answers execute(List<String> parts, Duration budget) throws SQLException {
        Prepared prepared = preparedFor(parts);
        var collector = new PartCollector(statementForResults(), limits.maxRows());
        bound.watch();
        try (var deadline = RoundTripDeadline.start(connection, budget)) {
            int maxRows = limits.maxRows();
            // The server stops each statement at one row past the limit: enough to tell that a
            // metric returned too many, without receiving the rest.
            queryExecutor().execute(prepared.query().query, prepared.query().query.createParameterList(), collector,
                    maxRows == Integer.MAX_VALUE ? 0 : maxRows + 1, 0, QueryExecutor.QUERY_SUPPRESS_BEGIN);
        } catch (SQLException e) {
            collector.handleError(e); // the session itself failed (closed under us, I/O)
        }
        int cut = bound.cutResult();
        Answers answers = collector.answers(cut, limits);
        if (answers.failure() != null) {
            // The statement stays cached: a metric that keeps failing is retried alone with the
            // same parts, and parsing its text again on the client every time was 3.8 % of the
            // collector's CPU at 300 sources whose databases lack 4 metrics' extensions; a failed
            // combination of several metrics is not sent again and ages out.
            rollbackAfter(answers.failure());
        }
        return answers;
    }

    private QueryExecutor queryExecutor() throws SQLException {
        return connection.unwrap(BaseConnection.class).getQueryExecutor();
    }

    /** A statement of this session whose only use is to turn a round trip's rows into result sets. */
    private BaseStatement statementForResults() throws SQLException {
        if (resultFactory == null) {
            resultFactory = connection.createStatement().unwrap(BaseStatement.class);
        }
        return resultFactory;
    }

    /**
     * A statement failed inside the framing: the server skipped the closing ROLLBACK and holds
     * an aborted transaction, which would refuse every later statement of the session.
     */
    private void rollbackAfter(SQLException failure) {
        try (Statement statement = connection.createStatement()) {
            statement.execute(ROLLBACK + SEPARATOR + CLEANUP);
        } catch (SQLException e) {
            failure.addSuppressed(e); // the session is probably gone; the caller decides
        }
    }

    /**
     * Throws when {@code bound} cut a result of the round trip since its {@link ResultBytesBound#watch}:
     * pgjdbc received that result whole but shorter, so the session is fine and the round trip's
     * other results are complete, but the cut one must not be delivered.
     */
    static void requireWhole(ResultBytesBound bound, ResultLimits limits) throws ResultTooLargeException {
        int cut = bound.cutResult();
        if (cut >= 0) {
            throw new ResultTooLargeException(cut, "more than " + limits.bytesText()
                    + " of rows (pgharvest.reaper.max-result-bytes)", null);
        }
    }

    /**
     * What the server answered for a round trip's parts, in order, up to the first failure.
     *
     * @param parts the results of the parts that completed (a part without rows, such as BEGIN, as
     *     {@link FetchedRows#EMPTY})
     * @param failure the first error, or null; the parts after the one it belongs to did not run
     * @param tooLarge the result past a limit (rows or bytes), or null; the server ran every part
     * @param refusedPart the part {@code tooLarge} belongs to, or -1
     */
    record Answers(List<FetchedRows> parts, SQLException failure, ResultTooLargeException tooLarge, int refusedPart) {
        boolean completed(int part) {
            return part < parts.size();
        }
    }

    private Prepared preparedFor(List<String> parts) throws SQLException {
        Prepared prepared = statements.get(parts);
        if (prepared == null) {
            String text = String.join(SEPARATOR, parts);
            if (mayHoldEscapes(parts)) {
                OneSelect.requireOneParsePerPart(connection, text, parts);
            }
            // Parsed as pgjdbc parses a prepared statement's text (escapes processed, '?' as a
            // parameter), with a '?' of a metric escaped as pgjdbc's '??', which splits the same
            // way as the text checked above: one such metric would otherwise leave the whole
            // combination unprepared, parsed and planned per tick. Sent without pgjdbc's one-shot
            // flag, each statement is prepared on the server at its first run and kept there.
            CachedQuery query = queryExecutor().createQuery(
                    QuestionMarks.escape(text, standardConformingStrings()), true, true);
            prepared = new Prepared(text, query);
            statements.put(List.copyOf(parts), prepared);
            if (statements.size() > CACHED_STATEMENTS) {
                var eldest = statements.entrySet().iterator().next();
                eldest.getValue().close();
                statements.remove(eldest.getKey());
            }
        }
        return prepared;
    }

    /**
     * Whether the joined text must be lexed again before it is sent. Each part was lexed on its own
     * between a BEGIN and a ROLLBACK ({@link #verdict}): it starts and ends at the lexer's top level
     * and is one message, so joined with the same separators the parts split the same way, and
     * lexing tens of kilobytes again for every new combination of metrics (half the CPU of a
     * source's first minutes) proves nothing new. The exception is pgjdbc's JDBC escape
     * processing, which could pair a brace of one part with a brace of another: it starts only
     * at a '{', so a combination with one is checked whole as before.
     */
    private static boolean mayHoldEscapes(List<String> parts) {
        for (String part : parts) {
            if (part.indexOf('{') >= 0) {
                return true;
            }
        }
        return false;
    }

    /** A combination's joined text and its query, prepared on the server at its first run. */
    private record Prepared(String text, CachedQuery query) {
        /** Frees the server-side statements (pgjdbc closes them with the session's next message). */
        void close() {
            query.query.close();
        }
    }

    /** How pgjdbc reads backslashes in literals on this session (on since PostgreSQL 9.1 by default). */
    private boolean standardConformingStrings() throws SQLException {
        return connection.unwrap(BaseConnection.class).getStandardConformingStrings();
    }

    private static String setTimeout(Duration timeout) {
        return "select set_config('statement_timeout', '" + timeout.toMillis() + "', true)";
    }

    @Override
    public void close() {
        statements.values().forEach(Prepared::close);
        statements.clear();
        if (resultFactory != null) {
            closeQuietly(resultFactory);
            resultFactory = null;
        }
    }

    private static void closeQuietly(Statement statement) {
        try {
            statement.close();
        } catch (SQLException ignored) {
            // The session may already be gone; the statement dies with it.
        }
    }

    /**
     * A metric's result was larger than pgharvest keeps (rows or bytes): the metric fails alone,
     * with an error naming the limit and its setting. Not a timeout, not a lost session.
     */
    static final class ResultTooLargeException extends SQLException {
        private static final String PROGRAM_LIMIT_EXCEEDED = "54000";
        private final int part;
        private final String what;

        ResultTooLargeException(int part, String what, Throwable cause) {
            super("a metric returned " + what, PROGRAM_LIMIT_EXCEEDED, cause);
            this.part = part;
            this.what = what;
        }

        private ResultTooLargeException(String metric, String what, Throwable cause) {
            super((metric == null ? "a metric" : "metric " + metric) + " returned " + what
                    + "; it is not collected until it returns less", PROGRAM_LIMIT_EXCEEDED, cause);
            this.part = -1;
            this.what = what;
        }

        int part() {
            return part;
        }

        /** The same failure, naming {@code metric}. */
        ResultTooLargeException of(String metric) {
            return new ResultTooLargeException(metric, what, getCause());
        }
    }

    /** The pipeline returned a different number of results than statements were sent. */
    static final class PipelineShapeException extends SQLException {
        PipelineShapeException(int expected, int actual) {
            super("pipeline returned " + actual + " results for " + expected
                    + " statements; a metric's SQL probably holds more than one statement");
        }
    }
}
