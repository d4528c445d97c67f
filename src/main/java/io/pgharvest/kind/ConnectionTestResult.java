package io.pgharvest.kind;


/**
 * Outcome of {@link ConnectionTests#run}: either the server's identity or why it could not be
 * reached. Contains no secrets.
 *
 * @param reachable        a session was established and the probe query answered
 * @param serverVersionNum server_version_num, e.g. 180003; null when not reachable
 * @param serverVersion    server_version, e.g. "18.3"; for pgbouncer and pgpool what they report
 *                         (SHOW VERSION, SHOW POOL_VERSION), e.g. "PgBouncer 1.18.0"; null when not reachable
 * @param inRecovery       pg_is_in_recovery(): true on a standby; null when not reachable
 * @param latencyMillis    time spent connecting and querying, or until the failure
 * @param error            what went wrong, with any password removed; null when reachable
 * @param sqlState         SQLSTATE of the failure (08001 connection refused, 28P01 bad password...), if any
 */
public record ConnectionTestResult(
        boolean reachable,
        Integer serverVersionNum,
        String serverVersion,
        Boolean inRecovery,
        long latencyMillis,
        String error,
        String sqlState) {

    public static ConnectionTestResult reached(int serverVersionNum, String serverVersion, boolean inRecovery,
            long latencyMillis) {
        return new ConnectionTestResult(true, serverVersionNum, serverVersion, inRecovery, latencyMillis, null, null);
    }

    /** An admin console (pgbouncer, pgpool) accepted the session and named its version. */
    public static ConnectionTestResult reachedConsole(String version, long latencyMillis) {
        return new ConnectionTestResult(true, null, version, null, latencyMillis, null, null);
    }

    static ConnectionTestResult failed(long latencyMillis, String error, String sqlState) {
        return new ConnectionTestResult(false, null, null, null, latencyMillis, error, sqlState);
    }
}
