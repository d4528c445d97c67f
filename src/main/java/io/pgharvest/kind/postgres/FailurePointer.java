package io.pgharvest.kind.postgres;

import io.pgharvest.kind.MetricQuery;
import io.pgharvest.model.sql.SqlLexer;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Which metric of a failed round trip the server's error points at, when it points at one.
 *
 * <p>A pipeline that fails returns no result, so by itself it does not say which statement failed;
 * finding out by halving costs round trips, a few per tick, over many ticks (see
 * {@link io.pgharvest.reaper.isolation.SuspectGroups}). But the commonest failures of a metric in a fleet are errors of parse
 * analysis: an extension that is not installed on this server (pg_buffercache, pgstattuple,
 * pg_qualstats), a view or column that this version lacks, a function that does not exist. For
 * those PostgreSQL reports the position of the offending name inside the failing statement and
 * names it in the message. The metric whose SQL has, at that position, a name that the message
 * quotes is the culprit, and no round trip is needed to find it.
 *
 * <p>The match has to be unique among the round trip's metrics; anything less certain (no
 * position, as for runtime errors and missing privileges; a name too short to mean anything; two
 * metrics with the same name at the same place) is left to the search. The message is compared
 * by the name only, so a server answering in another language still matches.
 */
final class FailurePointer {

    /** Names shorter than this (an alias such as {@code s}) would match messages by chance. */
    private static final int MIN_NAME_LENGTH = 3;
    /**
     * Characters the driver sends before a statement's own text: pgjdbc splits a pipeline's text
     * at each ';' and keeps the newline after it ({@link QueryPipeline} joins with "\n;\n"), so
     * positions in every statement but a pipeline's first are one further on. Both are tried.
     */
    private static final int[] LEADING_CHARS = {1, 0};
    /** A metric is sent inside {@link OneSelect#PREFIX} (a plain SHOW is not). */
    private static final int[] WRAPPERS = {OneSelect.PREFIX.length(), 0};

    private FailurePointer() {
    }

    /**
     * The query of {@code sent} that {@code failure} points at, or empty when the error does not
     * identify exactly one (timeouts and runtime errors carry no position, so they never do).
     */
    static Optional<MetricQuery> culprit(SQLException failure, List<MetricQuery> sent) {
        return culprit(failure, sent, MetricQuery::sql);
    }

    /**
     * As above, where {@code sentText} is each query's text as sent (its SQL with names of
     * extension objects qualified, QueryPipeline#sentText): positions count in that text.
     */
    static Optional<MetricQuery> culprit(SQLException failure, List<MetricQuery> sent,
            Function<MetricQuery, String> sentText) {
        if (!(failure instanceof PSQLException psql) || psql.getServerErrorMessage() == null) {
            return Optional.empty();
        }
        ServerErrorMessage error = psql.getServerErrorMessage();
        int position = error.getPosition(); // 1-based, in characters of the failing statement; 0 when absent
        String message = error.getMessage();
        if (position <= 0 || message == null) {
            return Optional.empty();
        }
        String lowerMessage = message.toLowerCase(Locale.ROOT);
        MetricQuery found = null;
        for (MetricQuery query : sent) {
            if (namesAt(sentText.apply(query), position, lowerMessage)) {
                if (found != null) {
                    return Optional.empty(); // two candidates: not certain
                }
                found = query;
            }
        }
        return Optional.ofNullable(found);
    }

    /** Whether {@code sql} has, at the 1-based {@code position} as sent, a name the message quotes. */
    private static boolean namesAt(String sql, int position, String lowerMessage) {
        for (int wrapper : WRAPPERS) {
            for (int leading : LEADING_CHARS) {
                String name = nameAt(sql, position - 1 - leading - wrapper);
                if (name != null && name.length() >= MIN_NAME_LENGTH
                        && lowerMessage.contains(name.toLowerCase(Locale.ROOT))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The name whose token starts at {@code index} (a quoted one as the server reads it), or null:
     * also when the position falls inside a word, a constant or a comment.
     */
    static String nameAt(String sql, int index) {
        if (index < 0 || index >= sql.length()) {
            return null;
        }
        for (SqlLexer.Token token : SqlLexer.lex(sql).tokens()) {
            if (token.end() > index) {
                if (token.start() != index) {
                    return null;
                }
                return switch (token.kind()) {
                    case WORD -> token.text();
                    case QUOTED_IDENTIFIER -> quotedName(token);
                    default -> null;
                };
            }
        }
        return null;
    }

    private static String quotedName(SqlLexer.Token token) {
        try {
            return token.value();
        } catch (IllegalArgumentException e) {
            return null; // a spelling the server refuses names nothing
        }
    }
}
