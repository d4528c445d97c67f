package io.pgharvest.kind;

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
 * @param reportedVersion what a peer that is not PostgreSQL calls its version (e.g. "PgBouncer
 *     1.18.0"); null for PostgreSQL, whose version is {@code versionNum}
 * @param endpointSqlKey for a peer that is not PostgreSQL, the key of a metric's {@code sqls}
 *     written for its kind (pgwatch's {@code 0} pgbouncer, {@code 3} pgpool); unused for PostgreSQL
 */
public record ServerFacts(int versionNum, boolean inRecovery, String systemIdentifier, String serverAddress,
        String database, Instant readAt, String reportedVersion, int endpointSqlKey) {

    /** Facts of a PostgreSQL server. */
    public ServerFacts(int versionNum, boolean inRecovery, String systemIdentifier, String serverAddress,
            String database, Instant readAt) {
        this(versionNum, inRecovery, systemIdentifier, serverAddress, database, readAt, null, -1);
    }

    /**
     * For peers that are not PostgreSQL servers (pgbouncer, pgpool): metrics run the SQL written
     * under their kind's key.
     *
     * @param reportedVersion what the peer calls its version, shown in the status
     * @param sqlKey the key of the SQL written for the peer's kind
     */
    public static ServerFacts notPostgres(Instant now, String reportedVersion, int sqlKey) {
        return new ServerFacts(0, false, null, null, null, now, reportedVersion, sqlKey);
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
    public String instanceKey(String fallbackHost) {
        if (systemIdentifier == null) {
            return null;
        }
        String address = serverAddress == null || serverAddress.isBlank() ? fallbackHost : serverAddress;
        return systemIdentifier + "@" + address;
    }

    /**
     * The key a metric's SQL is chosen by: the PostgreSQL major version, or for a pooler its
     * kind's key, which {@code MetricDefinition.sqlFor} matches exactly.
     */
    public int majorVersion() {
        return versionNum == 0 ? endpointSqlKey : versionNum / 10000;
    }

    public String displayVersion() {
        return versionNum == 0 ? reportedVersion : (versionNum / 10000) + "." + (versionNum % 100);
    }
}
