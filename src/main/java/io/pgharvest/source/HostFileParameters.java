package io.pgharvest.source;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.InvalidConfigException;
import java.util.List;
import java.util.Set;

/**
 * The API's rule for connection parameters that name files on pgharvest's own host (a password
 * file, TLS keys and certificates, revocation lists, a service file entry): refused, because
 * they would let a holder of the API token make the collector read its local files and send
 * what they hold (a client key, a password) to a server of the caller's choice. The operator's
 * own configuration files (sources.yaml in the data directory, the start-up import) may use
 * them: whoever writes those already controls the host.
 */
final class HostFileParameters {

    static final Set<String> NAMES = Set.of("passfile", "sslkey", "sslcert", "sslrootcert", "sslcrl", "sslcrldir",
            "service");

    /** {@code sslrootcert=system} names the JDK's trust store, not a file. */
    private static final String SYSTEM_TRUST_STORE = "system";

    private HostFileParameters() {
    }

    /** @throws InvalidConfigException naming {@code connStr} and each such parameter {@code source} holds */
    static Source refuse(Source source) {
        if (!(source.connection().parsed().orElse(null) instanceof ConnectionString conn)) {
            return source;
        }
        List<String> found = conn.parameters().entrySet().stream()
                .filter(p -> NAMES.contains(p.getKey()))
                .filter(p -> !("sslrootcert".equals(p.getKey()) && SYSTEM_TRUST_STORE.equals(p.getValue())))
                .map(p -> p.getKey())
                .toList();
        if (found.isEmpty()) {
            return source;
        }
        throw new InvalidConfigException(StoreTable.SOURCES, source.name(), List.of(new FieldProblem("connStr",
                "parameter" + (found.size() > 1 ? "s " : " ") + String.join(", ", found) + " name"
                        + (found.size() > 1 ? "" : "s") + " a file on pgharvest's host and "
                        + (found.size() > 1 ? "are" : "is") + " accepted only in the operator's configuration"
                        + " files (sources.yaml in the data directory, the start-up import), not through the API")));
    }
}
