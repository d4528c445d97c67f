package io.pgharvest.model.connection;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Connection parameters that name files on pgharvest's own host (a password file, TLS keys and
 * certificates, revocation lists, a service file entry). Whatever reaches pgharvest through its API
 * (create, replace, the draft connection test, the YAML import) may not use them, because they
 * would let a holder of the API token make the collector read its local files and send what they
 * hold (a client key, a password) to a server of the caller's choice. The operator's own
 * configuration files (sources.yaml in the data directory, the start-up import) may use them:
 * whoever writes those already controls the host. Checked on a parsed connection's
 * {@linkplain ParsedConnection#sessionParameters() session parameters}: a PostgreSQL connection
 * string's own, or those a kind's syntax gives every server it finds.
 */
public final class HostFileParameters {

    static final Set<String> NAMES = Set.of("passfile", "sslkey", "sslcert", "sslrootcert", "sslcrl", "sslcrldir",
            "service");

    /** {@code sslrootcert=system} names the JDK's trust store, not a file. */
    private static final String SYSTEM_TRUST_STORE = "system";

    private HostFileParameters() {
    }

    /**
     * Why {@code connection} is refused through the API, naming each such parameter it holds; empty
     * when it holds none.
     */
    public static Optional<String> refusal(ParsedConnection connection) {
        Map<String, String> parameters = connection == null ? Map.of() : connection.sessionParameters();
        List<String> found = parameters.entrySet().stream()
                .filter(p -> NAMES.contains(p.getKey()))
                .filter(p -> !("sslrootcert".equals(p.getKey()) && SYSTEM_TRUST_STORE.equals(p.getValue())))
                .map(Map.Entry::getKey)
                .toList();
        if (found.isEmpty()) {
            return Optional.empty();
        }
        boolean many = found.size() > 1;
        return Optional.of("parameter" + (many ? "s " : " ") + String.join(", ", found) + " name" + (many ? "" : "s")
                + " a file on pgharvest's host and " + (many ? "are" : "is") + " accepted only in the operator's"
                + " configuration files (sources.yaml in the data directory, the start-up import), not through the API");
    }
}
