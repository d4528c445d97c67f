package io.pgharvest.reaper;

import java.time.Duration;

/**
 * How monitoring sessions are opened. Every session is read-only, names itself
 * {@code application_name=pgharvest}, and has a short {@code lock_timeout} so that a metric
 * query never queues behind DDL holding a lock on a catalog it reads.
 */
record SessionSettings(Duration connectTimeout, Duration defaultStatementTimeout, Duration lockTimeout,
        Duration socketTimeout) {

    static final String APPLICATION_NAME = "pgharvest";
}
