package io.pgharvest.reaper;

import java.time.Instant;

/**
 * What a reaper knows about the server behind its session, refreshed periodically and after
 * every reconnect.
 *
 * @param versionNum {@code server_version_num}, e.g. 170004; 0 when the peer is not PostgreSQL
 * @param systemIdentifier {@code pg_control_system().system_identifier}, or null when not
 *     readable (no privilege)
 * @param serverAddress {@code inet_server_addr():inet_server_port()} of the server actually
 *     connected to (with several hosts in the connection string it need not be the first)
 * @param database {@code current_database()}: which of the instance's databases this session
 *     reads, the key its share of a fanned-out result is found under; null when not PostgreSQL
 */
record ServerFacts(int versionNum, boolean inRecovery, String systemIdentifier, String serverAddress,
        String database, Instant readAt) {

    /** For peers that are not PostgreSQL servers (pgbouncer, pgpool): every metric's newest SQL. */
    static ServerFacts notPostgres(Instant now) {
        return new ServerFacts(0, false, null, null, null, now);
    }

    /**
     * Identifies the PostgreSQL instance for sharing instance-level results. The address tells
     * a standby from its primary (same system identifier); the identifier tells two servers
     * behind the same address apart (a rebuilt server, or containers that all report the same
     * inet_server_addr()).
     *
     * @return null when the system identifier is not readable (no pg_monitor): then the
     *     instance is unknown and its results are not shared, since two servers could otherwise
     *     deliver each other's rows
     */
    String instanceKey(String fallbackHost) {
        if (systemIdentifier == null) {
            return null;
        }
        String address = serverAddress == null || serverAddress.isBlank() ? fallbackHost : serverAddress;
        return systemIdentifier + "@" + address;
    }

    /** The major version used to choose a metric's SQL; unknown peers get the newest SQL. */
    int majorVersion() {
        return versionNum == 0 ? Integer.MAX_VALUE : versionNum / 10000;
    }

    String displayVersion() {
        return versionNum == 0 ? null : (versionNum / 10000) + "." + (versionNum % 100);
    }
}
