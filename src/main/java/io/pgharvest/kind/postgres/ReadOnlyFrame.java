package io.pgharvest.kind.postgres;

import java.time.Duration;

/**
 * The statements every round trip of a session is framed in, in one place because they are the
 * read-only boundary (docs/security.md): {@code BEGIN READ ONLY; <metrics>; <advisory unlock>;
 * ROLLBACK}, joined by {@link #SEPARATOR}. {@link QueryPipeline} assembles a round trip in this
 * frame, {@link MetricVerdicts} checks each metric inside it, and {@link SessionStatements} ends a
 * frame the server left open when a statement failed.
 */
final class ReadOnlyFrame {

    static final String SEPARATOR = "\n;\n";
    static final String BEGIN = "begin transaction read only";
    static final String ROLLBACK = "rollback";
    /**
     * Last statement before the ROLLBACK, in the same round trip and transaction: undoes the one
     * thing a SELECT can leave in its session that a rollback does not (session advisory locks
     * outlive the transaction; settings, roles, temporary objects, cursors and LISTEN do not).
     * An int column, not the function's void: pgjdbc would look the void type up in the catalog
     * (one more round trip and transaction) the first time it reads the result.
     */
    static final String CLEANUP = "select 0 as released from pg_advisory_unlock_all()";

    private ReadOnlyFrame() {
    }

    /** A metric's own time limit, transaction-local: the frame's ROLLBACK ends it, no reset. */
    static String setTimeout(Duration timeout) {
        return "select set_config('statement_timeout', '" + timeout.toMillis() + "', true)";
    }
}
