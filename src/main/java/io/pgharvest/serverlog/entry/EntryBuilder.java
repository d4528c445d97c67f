package io.pgharvest.serverlog.entry;

import java.time.Instant;

/**
 * Collects the parts of one entry and bounds its text ({@link LogEntry#MAX_CHARS}): the message
 * first, then STATEMENT, DETAIL, CONTEXT, HINT and the internal query get what is left, so a
 * plan or a row dump of megabytes cannot take the collector's memory.
 */
final class EntryBuilder {

    Instant time;
    String severity;
    String sqlState;
    String message;
    String detail;
    String hint;
    String context;
    String statement;
    String internalQuery;
    String database;
    String user;
    Integer pid;
    String clientAddress;
    String application;
    String backendType;
    Long queryId;

    private int left;
    private boolean truncated;

    LogEntry build() {
        left = LogEntry.MAX_CHARS;
        truncated = false;
        String boundMessage = bound(message);
        String boundStatement = bound(statement);
        String boundDetail = bound(detail);
        String boundContext = bound(context);
        String boundHint = bound(hint);
        String boundInternal = bound(internalQuery);
        return new LogEntry(time, severity, sqlState, boundMessage, boundDetail, boundHint, boundContext,
                boundStatement, boundInternal, database, user, pid, clientAddress, application, backendType, queryId,
                truncated);
    }

    private String bound(String text) {
        if (text == null) {
            return null;
        }
        if (text.length() <= left) {
            left -= text.length();
            return text;
        }
        truncated = true;
        String cut = text.substring(0, left);
        left = 0;
        return cut;
    }

    static String emptyToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    static Integer integer(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static Long longValue(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Long.valueOf(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code host(port)} or {@code host:port} of %r / csvlog's connection_from without the port. */
    static String hostOnly(String connectionFrom) {
        if (connectionFrom == null || connectionFrom.isEmpty()) {
            return null;
        }
        int paren = connectionFrom.indexOf('(');
        if (paren > 0) {
            return connectionFrom.substring(0, paren);
        }
        int colon = connectionFrom.lastIndexOf(':');
        if (colon > 0 && connectionFrom.indexOf(':') == colon) {
            return connectionFrom.substring(0, colon); // IPv4 or a name with a port; IPv6 has several colons
        }
        return connectionFrom;
    }
}
