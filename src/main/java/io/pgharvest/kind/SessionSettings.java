package io.pgharvest.kind;

import java.time.Duration;

/**
 * How monitoring sessions are opened. Every session is read-only, names itself
 * {@code application_name=pgharvest}, and has a short {@code lock_timeout} so that a metric
 * query never queues behind DDL holding a lock on a catalog it reads.
 *
 * @param connectTimeout bound for establishing a session (TCP connect and login)
 * @param defaultStatementTimeout server-side limit of a metric without a timeout of its own
 * @param lockTimeout server-side limit for waiting on a lock
 * @param socketTimeout client-side safety net for a server that stops answering mid-query
 * @param refusePrivileged refuse sessions whose role is a superuser or can write
 *     ({@link RolePrivileges})
 * @param allowSuperuser open sessions whose login role is a superuser; off, such a login is
 *     refused when it opens (a superuser can switch role and reach files and other sessions from
 *     inside a SELECT, so no boundary pgharvest sets holds for it)
 * @param resultLimits how many rows a metric's result may hold
 */
public record SessionSettings(Duration connectTimeout, Duration defaultStatementTimeout, Duration lockTimeout,
        Duration socketTimeout, boolean refusePrivileged, boolean allowSuperuser, ResultLimits resultLimits) {

    /** Settings with the default result limits. */
    public SessionSettings(Duration connectTimeout, Duration defaultStatementTimeout, Duration lockTimeout,
            Duration socketTimeout, boolean refusePrivileged, boolean allowSuperuser) {
        this(connectTimeout, defaultStatementTimeout, lockTimeout, socketTimeout, refusePrivileged, allowSuperuser,
                ResultLimits.DEFAULT);
    }

    /** The fan-out variants of imported metrics find each database's collecting session by it. */
    public static final String APPLICATION_NAME = io.pgharvest.fanout.FanOutRewrite.COLLECTOR_APPLICATION_NAME;

    /** Settings that accept privileged roles, superusers included (and warn about them). */
    public SessionSettings(Duration connectTimeout, Duration defaultStatementTimeout, Duration lockTimeout,
            Duration socketTimeout) {
        this(connectTimeout, defaultStatementTimeout, lockTimeout, socketTimeout, false, true);
    }
}
