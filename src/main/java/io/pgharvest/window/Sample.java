package io.pgharvest.window;

import java.time.Instant;

/**
 * One sampled session (a row of {@code query_samples}): what it ran, what it waited on, who blocked it.
 *
 * @param time when it was sampled
 * @param pid the backend's process id
 * @param queryid the statement's query id ("" when the server computes none)
 * @param dbname the database
 * @param state the session state (active, idle in transaction, ...)
 * @param waitEventType what kind of wait ("" when not waiting)
 * @param waitEvent the wait event ("" when not waiting)
 * @param durationSeconds how long the statement had run
 * @param blockingPids the sessions holding the lock it waits for, comma-separated ("" when none)
 * @param applicationName the session's application
 * @param userName the session's role
 */
record Sample(Instant time, String pid, String queryid, String dbname, String state, String waitEventType,
        String waitEvent, Double durationSeconds, String blockingPids, String applicationName, String userName) {

    /** What the window reserves for one sample: the record and its strings (2 bytes a char, as a bound). */
    long bytes() {
        return 160 + 2L * (length(pid) + length(queryid) + length(dbname) + length(state) + length(waitEventType)
                + length(waitEvent) + length(blockingPids) + length(applicationName) + length(userName));
    }

    private static int length(String text) {
        return text == null ? 0 : text.length();
    }
}
