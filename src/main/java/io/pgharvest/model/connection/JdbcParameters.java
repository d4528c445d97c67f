package io.pgharvest.model.connection;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Translation of libpq connection parameters into pgjdbc connection properties.
 *
 * <p>Only parameters with a pgjdbc equivalent are translated; the others have no effect on a JDBC
 * connection and are reported by {@link #unsupported}. Values are checked when a connection
 * string is parsed, so a typo in {@code sslmode} is an input error, not a failed connection later.
 */
final class JdbcParameters {

    /** Parameters whose values are secret and are masked like the password. */
    static final Set<String> SECRET = Set.of("password", "sslpassword");

    /** libpq keywords (PostgreSQL 18); only these names may appear in error messages. */
    static final Set<String> LIBPQ_KEYWORDS = Set.of("host", "hostaddr", "port", "dbname", "user", "password",
            "passfile", "require_auth", "channel_binding", "connect_timeout", "client_encoding", "options",
            "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
            "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode",
            "sslmode", "sslnegotiation", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode",
            "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
            "ssl_max_protocol_version", "min_protocol_version", "max_protocol_version", "krbsrvname", "gsslib",
            "gssdelegation", "service", "target_session_attrs", "load_balance_hosts");

    private record Mapping(String property, UnaryOperator<String> translate) {
    }

    /**
     * In application order: fallback_application_name comes before application_name so that the
     * latter wins, as in libpq.
     */
    private static final Map<String, Mapping> MAPPINGS = mappings();

    private JdbcParameters() {
    }

    private static Map<String, Mapping> mappings() {
        Map<String, Mapping> m = new LinkedHashMap<>();
        m.put("sslmode", oneOf("sslmode", "sslmode",
                "disable", "allow", "prefer", "require", "verify-ca", "verify-full"));
        m.put("sslrootcert", same("sslrootcert"));
        m.put("sslcert", same("sslcert"));
        m.put("sslkey", same("sslkey"));
        m.put("sslpassword", same("sslpassword"));
        m.put("sslnegotiation", oneOf("sslnegotiation", "sslNegotiation", "postgres", "direct"));
        m.put("gssencmode", oneOf("gssencmode", "gssEncMode", "disable", "prefer", "require"));
        m.put("channel_binding", oneOf("channel_binding", "channelBinding", "disable", "prefer", "require"));
        m.put("require_auth", same("requireAuth"));
        m.put("krbsrvname", same("kerberosServerName"));
        m.put("gsslib", oneOf("gsslib", "gsslib", "gssapi", "sspi"));
        m.put("connect_timeout", new Mapping("connectTimeout", JdbcParameters::seconds));
        m.put("fallback_application_name", same("ApplicationName"));
        m.put("application_name", same("ApplicationName"));
        m.put("options", new Mapping("options", value -> {
            ProtectedOptions.validate(value);
            return value;
        }));
        m.put("target_session_attrs", new Mapping("targetServerType", JdbcParameters::targetServerType));
        m.put("keepalives", new Mapping("tcpKeepAlive", value -> switch (value) {
            case "1" -> "true";
            case "0" -> "false";
            default -> throw invalid("keepalives", value, "0 or 1");
        }));
        m.put("load_balance_hosts", new Mapping("loadBalanceHosts", value -> switch (value) {
            case "random" -> "true";
            case "disable" -> "false";
            default -> throw invalid("load_balance_hosts", value, "disable or random");
        }));
        return m;
    }

    /** Throws {@link InvalidConnectionStringException} for a value the parameter cannot take. */
    static void validate(Map<String, String> parameters) {
        parameters.forEach((name, value) -> {
            Mapping mapping = MAPPINGS.get(name);
            if (mapping != null) {
                mapping.translate().apply(value);
            }
        });
    }

    /**
     * The {@code connect_timeout} of {@code parameters}; empty when it is absent or 0, which libpq
     * reads as no limit.
     *
     * @throws InvalidConnectionStringException when it is not a whole number of seconds
     */
    static Optional<Duration> connectTimeout(Map<String, String> parameters) {
        String value = parameters.get("connect_timeout");
        if (value == null) {
            return Optional.empty();
        }
        long seconds = Long.parseLong(seconds(value));
        return seconds == 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
    }

    /** Sets the pgjdbc properties for the libpq {@code parameters} that have one. */
    static void translate(Map<String, String> parameters, Properties target) {
        MAPPINGS.forEach((name, mapping) -> {
            String value = parameters.get(name);
            if (value != null) {
                target.setProperty(mapping.property(), mapping.translate().apply(value));
            }
        });
    }

    /** The names among {@code parameters} that do not affect a JDBC connection, in their order. */
    static List<String> unsupported(Map<String, String> parameters) {
        return parameters.keySet().stream().filter(name -> !MAPPINGS.containsKey(name)).toList();
    }

    private static Mapping same(String property) {
        return new Mapping(property, UnaryOperator.identity());
    }

    private static Mapping oneOf(String name, String property, String... allowed) {
        List<String> values = List.of(allowed);
        return new Mapping(property, value -> {
            if (!values.contains(value)) {
                throw invalid(name, value, String.join(", ", values));
            }
            return value;
        });
    }

    private static String seconds(String value) {
        try {
            int seconds = Integer.parseInt(value.strip());
            if (seconds >= 0) {
                return Integer.toString(seconds);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid("connect_timeout", value, "a whole number of seconds (0 = no limit)");
    }

    /**
     * libpq's read-only also accepts a primary whose default_transaction_read_only is on; pgjdbc
     * has no such mode, so read-only means a standby here, like standby.
     */
    private static String targetServerType(String value) {
        return switch (value) {
            case "any" -> "any";
            case "read-write", "primary" -> "primary";
            case "read-only", "standby" -> "secondary";
            case "prefer-standby" -> "preferSecondary";
            default -> throw invalid("target_session_attrs", value,
                    "any, read-write, read-only, primary, standby or prefer-standby");
        };
    }

    private static InvalidConnectionStringException invalid(String name, String value, String expected) {
        return new InvalidConnectionStringException(
                "'" + value + "' is not a valid " + name + "; expected " + expected);
    }
}
