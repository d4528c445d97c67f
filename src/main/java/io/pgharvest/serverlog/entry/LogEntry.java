package io.pgharvest.serverlog.entry;

import java.time.Instant;

/**
 * One record of the server log, whatever format it was written in, with the parts the log line
 * carried; a part the format or the {@code log_line_prefix} does not carry is null (a query ID of
 * 0 is the server's "none").
 *
 * <p>The texts are the server's, literals included: whoever lets one leave pgharvest redacts it first.
 *
 * @param time when the server wrote it, null when the line does not say
 * @param severity {@code LOG}, {@code ERROR}, {@code DEBUG1} ... as the server writes it (in English
 *     with lc_messages C or en)
 * @param truncated whether the entry was longer than {@link #MAX_CHARS} and lost its tail
 */
public record LogEntry(Instant time, String severity, String sqlState, String message, String detail, String hint,
        String context, String statement, String internalQuery, String database, String user, Integer pid,
        String clientAddress, String application, String backendType, Long queryId, boolean truncated) {

    /** The bound on one entry's text (message, DETAIL, CONTEXT, STATEMENT together), in characters. */
    public static final int MAX_CHARS = 64 * 1024;

    /** The SQLSTATE's class (its first two characters), null without a SQLSTATE. */
    public String sqlStateClass() {
        return sqlState == null || sqlState.length() < 2 ? null : sqlState.substring(0, 2);
    }

    /** The query ID when the line carries one that is not the server's 0. */
    public Long knownQueryId() {
        return queryId == null || queryId == 0 ? null : queryId;
    }
}
