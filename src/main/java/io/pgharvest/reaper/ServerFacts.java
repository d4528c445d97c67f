package io.pgharvest.reaper;

import java.time.Instant;

/**
 * What a reaper knows about the server behind its session, refreshed periodically and after
 * every reconnect.
 *
 * @param versionNum {@code server_version_num}, e.g. 170004; 0 when the peer is not PostgreSQL
 * @param systemIdentifier {@code pg_control_system().system_identifier}, or null when not
 *     readable (no privilege); instance-level sharing then falls back to host and port
 */
record ServerFacts(int versionNum, boolean inRecovery, String systemIdentifier, Instant readAt) {

    /** For peers that are not PostgreSQL servers (pgbouncer, pgpool): every metric's newest SQL. */
    static ServerFacts notPostgres(Instant now) {
        return new ServerFacts(0, false, null, now);
    }

    /** The major version used to choose a metric's SQL; unknown peers get the newest SQL. */
    int majorVersion() {
        return versionNum == 0 ? Integer.MAX_VALUE : versionNum / 10000;
    }

    String displayVersion() {
        return versionNum == 0 ? null : (versionNum / 10000) + "." + (versionNum % 100);
    }
}
