package io.pgharvest.kind.postgres;

import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.BaseStatement;
import org.postgresql.core.CachedQuery;
import org.postgresql.core.QueryExecutor;

/**
 * What one session's round trips are sent through: the server-side statements kept per
 * combination of parts (so that the server reuses its plans after pgjdbc's prepare threshold),
 * the statement that turns rows into result sets, the connection's read timeout and the stream's
 * byte bound. It runs a round trip's parts as {@link QueryPipeline} assembled them, within the
 * round trip's deadline ({@link RoundTripDeadline}), and returns what the server answered
 * ({@link PartCollector.Answers}). Exists apart from the pipeline because this state lives as
 * long as the session and has its own invariants (the cache's bound, statements freed when they
 * leave it, the timeout set only when it changes), while the pipeline's work is per round trip.
 *
 * <p>Not thread-safe: owned by one session's {@link QueryPipeline}.
 */
final class SessionStatements implements AutoCloseable {

    /**
     * Statements kept per session. Each holds the joined SQL of its combination of metrics twice
     * (our text and pgjdbc's parsed copy) plus result metadata, so this bounds per-source memory;
     * a source whose combinations rotate through more than this (instance-level results reused
     * on some ticks only) gets no server-side plan reuse from the extra ones either way.
     */
    private static final int CACHED_STATEMENTS = 8;
    /** Room for network and server overhead on top of the statements' own time limits. */
    private static final Duration NETWORK_MARGIN = Duration.ofSeconds(30);

    private final Connection connection;
    private final Duration minNetworkTimeout;
    private final ResultLimits limits;
    /** The stream this session's results arrive through, which cuts a result past the byte limit. */
    private final ResultBytesBound bound;
    /**
     * Keyed by the statements' texts as a list, not by the joined text: the lookup on every tick
     * compares the (shared) metric SQL strings by reference and hash instead of joining and
     * hashing tens of kilobytes.
     */
    private final Map<List<String>, Prepared> statements = new LinkedHashMap<>(16, 0.75f, true);
    private long networkTimeoutMillis = -1;
    /** Turns a round trip's rows into result sets ({@link #statementForResults}); made on first use. */
    private BaseStatement resultFactory;

    /**
     * @param minNetworkTimeout the client-side read timeout when the statements' own limits
     *     add up to less (pgharvest.reaper.socket-timeout)
     * @param limits rows and bytes one metric may return (pgharvest.reaper.max-result-rows and -bytes)
     * @param bound the session's stream, armed with {@code limits.maxBytes()}; it reports the result it cut
     */
    SessionStatements(Connection connection, Duration minNetworkTimeout, ResultLimits limits, ResultBytesBound bound) {
        this.connection = connection;
        this.minNetworkTimeout = minNetworkTimeout;
        this.limits = limits;
        this.bound = bound;
    }

    /**
     * The server answers a pipeline only at its end, so the socket may rightly stay silent for
     * the sum of the statements' time limits; the client-side read timeout must not cut that
     * short (it would look like a lost session and the tick would be lost every time).
     */
    void allowSilenceFor(List<MetricQuery> queries) throws SQLException {
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
    PartCollector.Answers execute(List<String> parts, Duration budget) throws SQLException {
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
        PartCollector.Answers answers = collector.answers(cut, limits);
        if (answers.failure() != null) {
            // The statement stays cached: a metric that keeps failing is retried alone with the
            // same parts, and parsing its text again on the client every time was 3.8 % of the
            // collector's CPU at 300 sources whose databases lack 4 metrics' extensions; a failed
            // combination of several metrics is not sent again and ages out.
            rollbackAfter(answers.failure());
        }
        return answers;
    }

    /** How pgjdbc reads backslashes in literals on this session (on since PostgreSQL 9.1 by default). */
    boolean standardConformingStrings() throws SQLException {
        return connection.unwrap(BaseConnection.class).getStandardConformingStrings();
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
            statement.execute(ReadOnlyFrame.ROLLBACK + ReadOnlyFrame.SEPARATOR + ReadOnlyFrame.CLEANUP);
        } catch (SQLException e) {
            failure.addSuppressed(e); // the session is probably gone; the caller decides
        }
    }

    private Prepared preparedFor(List<String> parts) throws SQLException {
        Prepared prepared = statements.get(parts);
        if (prepared == null) {
            String text = String.join(ReadOnlyFrame.SEPARATOR, parts);
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
     * between a BEGIN and a ROLLBACK ({@link MetricVerdicts}): it starts and ends at the lexer's top
     * level and is one message, so joined with the same separators the parts split the same way, and
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
}
