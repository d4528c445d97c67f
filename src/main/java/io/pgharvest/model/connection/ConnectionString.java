package io.pgharvest.model.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.SequencedMap;
import java.util.stream.Collectors;

/**
 * A source's connection as an operator writes it: a libpq connection URI
 * ({@code postgresql://user:secret@db1:5432,db2:5433/orders?sslmode=require}) or a libpq
 * key=value string ({@code host=db1 dbname=orders user=monitor password='se cr\'et'}).
 *
 * <p>pgjdbc accepts neither, so this class also gives the JDBC form: {@link #jdbcUrl()} (never with
 * credentials) and {@link #jdbcProperties()}. Defaults: port 5432; user {@value #DEFAULT_USER}
 * (libpq would take the operating-system user, which means nothing for a collector); database
 * = the user name, as in libpq. Unix-domain sockets are not supported (pgjdbc speaks TCP).
 *
 * <p>The text may hold a password. {@link #render()} returns it in full, for storage only;
 * anything shown or logged uses {@link #masked()}, which {@link #toString()} returns. URI query
 * parameters named host, port, dbname, user or password are moved into their URI parts on
 * rendering; other parameters keep their order. Instances are immutable.
 */
public final class ConnectionString implements ParsedConnection {

    /** Replaces secrets in {@link #masked()}. */
    public static final String MASK = "********";
    public static final int DEFAULT_PORT = 5432;
    public static final String DEFAULT_USER = "postgres";

    /** libpq's syntax, read by {@link #parse(String)}: how every kind that names its server writes it. */
    public static final ConnectionSyntax SYNTAX = new LibpqSyntax();

    /** The syntax a connection string was written in; rendering keeps it. */
    public enum Format { URI, KEY_VALUE }

    private static final java.util.regex.Pattern VALID_HOST = java.util.regex.Pattern.compile("[\\p{L}\\p{N}._%:-]+");

    /** One server address; IPv6 addresses without brackets. */
    public record HostPort(String host, int port) {
        public HostPort {
            Objects.requireNonNull(host, "host");
            if (host.isEmpty()) {
                throw new InvalidConnectionStringException("a host name is empty");
            }
            // pgjdbc reads '/', '?', '&' and '=' in a host as URL syntax (database, parameters).
            if (!VALID_HOST.matcher(host).matches()) {
                throw new InvalidConnectionStringException("host '" + host + "' may only hold letters, digits,"
                        + " '.', '-', '_', '%' and ':' (an IPv6 address)");
            }
            if (port < 1 || port > 65535) {
                throw new InvalidConnectionStringException("port of host " + host + " must be 1-65535");
            }
        }

        boolean isIpv6() {
            return host.indexOf(':') >= 0;
        }

        @Override
        public String toString() {
            return (isIpv6() ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private final Format format;
    private final String scheme;
    private final List<HostPort> hosts;
    private final String user;
    private final String password;
    private final String database;
    private final SequencedMap<String, String> parameters;
    /** The parameter connect_timeout, read once with the string; null when it has none or 0. */
    private final Duration connectTimeout;

    private ConnectionString(Format format, String scheme, List<HostPort> hosts, String user, String password,
            String database, SequencedMap<String, String> parameters) {
        this.format = format;
        this.scheme = scheme;
        this.hosts = List.copyOf(hosts);
        this.user = user;
        this.password = password;
        this.database = database;
        this.parameters = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(parameters));
        this.connectTimeout = JdbcParameters.connectTimeout(parameters).orElse(null);
    }

    /**
     * Parses a libpq connection URI or key=value string.
     *
     * @throws InvalidConnectionStringException for empty text, an unknown URI scheme, a missing
     *         host, a bad port, an unterminated quote, bad percent-encoding, or an invalid value
     *         of a parameter pgjdbc understands (such as sslmode); the message never contains the password
     */
    public static ConnectionString parse(String text) {
        ConnectionStringParser.Parsed parsed = ConnectionStringParser.parse(text);
        SequencedMap<String, String> keywords = new LinkedHashMap<>(parsed.keywords());
        List<HostPort> hosts = HostList.parse(keywords.remove("host"), keywords.remove("port"));
        String user = emptyToNull(keywords.remove("user"));
        String password = keywords.remove("password");
        String database = emptyToNull(keywords.remove("dbname"));
        JdbcParameters.validate(keywords);
        return new ConnectionString(parsed.format(), parsed.scheme(), hosts, user, password, database, keywords);
    }

    public Format format() {
        return format;
    }

    /** The servers to try, in order; never empty. */
    public List<HostPort> hosts() {
        return hosts;
    }

    /** The database name, or the user name when none was given. */
    public String database() {
        return database != null ? database : user();
    }

    /** The user name, or {@value #DEFAULT_USER} when none was given. */
    public String user() {
        return user != null ? user : DEFAULT_USER;
    }

    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /** Parameters other than host, port, dbname, user and password, in the order written. */
    public SequencedMap<String, String> parameters() {
        return parameters;
    }

    /** The string's {@code connect_timeout}; empty when it has none or 0 (libpq's "no limit"). */
    public Optional<Duration> connectTimeout() {
        return Optional.ofNullable(connectTimeout);
    }

    /**
     * How long one connection attempt may take under pgharvest's own {@code bound}: the bound, or
     * the string's {@code connect_timeout} when that is shorter.
     */
    public Duration connectTimeoutWithin(Duration bound) {
        return connectTimeout != null && connectTimeout.compareTo(bound) < 0 ? connectTimeout : bound;
    }

    /** Names of {@link #parameters()} with no pgjdbc equivalent, which a JDBC connection ignores. */
    public List<String> unsupportedParameters() {
        return JdbcParameters.unsupported(parameters);
    }

    /** A copy with another password; {@code null} removes it. */
    public ConnectionString withPassword(String newPassword) {
        return new ConnectionString(format, scheme, hosts, user, newPassword, database, parameters);
    }

    /**
     * A copy that logs in as another role with its own password ({@code null}: none), everything else
     * (servers, database, TLS and other parameters) as this one: query_plans' planning login.
     */
    public ConnectionString withCredentials(String newUser, String newPassword) {
        return new ConnectionString(format, scheme, hosts, newUser, newPassword, database(), parameters);
    }

    /** A copy naming another database (a discoverer derives one source per database). */
    public ConnectionString withDatabase(String newDatabase) {
        return new ConnectionString(format, scheme, hosts, user, password, newDatabase, parameters);
    }

    @Override
    public ConnectionString withSessionPassword(String newPassword) {
        return withPassword(newPassword);
    }

    @Override
    public ConnectionSyntax syntax() {
        return SYNTAX;
    }

    /** {@link #parameters()}: the session is this connection's own. */
    @Override
    public Map<String, String> sessionParameters() {
        return parameters;
    }

    @Override
    public boolean passwordIsMask() {
        return MASK.equals(password);
    }

    /** The full text including the password, in the form it was parsed from. For storage only. */
    @Override
    public String render() {
        return format == Format.URI ? renderUri(false) : renderKeyValue(false);
    }

    /** Like {@link #render()} with the password and other secret parameters replaced by {@value #MASK}. */
    @Override
    public String masked() {
        return format == Format.URI ? renderUri(true) : renderKeyValue(true);
    }

    /** {@code jdbc:postgresql://h1:p1,h2:p2/db}, without credentials or parameters. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + hosts.stream().map(HostPort::toString).collect(Collectors.joining(","))
                + "/" + PercentEncoding.encode(database());
    }

    /** user, password and the pgjdbc equivalents of the libpq parameters (see {@link #unsupportedParameters()}). */
    public Properties jdbcProperties() {
        Properties properties = new Properties();
        properties.setProperty("user", user());
        if (password != null) {
            properties.setProperty("password", password);
        }
        JdbcParameters.translate(parameters, properties);
        return properties;
    }

    /** Non-empty secret values (password, sslpassword), for removing them from error texts. */
    @Override
    public List<String> secrets() {
        List<String> secrets = new ArrayList<>();
        if (password != null && !password.isEmpty()) {
            secrets.add(password);
        }
        parameters.forEach((name, value) -> {
            if (isSecret(name) && !value.isEmpty()) {
                secrets.add(value);
            }
        });
        return secrets;
    }

    /** The masked text: safe to log. */
    @Override
    public String toString() {
        return masked();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConnectionString that
                && format == that.format
                && Objects.equals(scheme, that.scheme)
                && hosts.equals(that.hosts)
                && Objects.equals(user, that.user)
                && Objects.equals(password, that.password)
                && Objects.equals(database, that.database)
                && List.copyOf(parameters.entrySet()).equals(List.copyOf(that.parameters.entrySet()));
    }

    @Override
    public int hashCode() {
        return Objects.hash(format, scheme, hosts, user, password, database, parameters);
    }

    private String renderUri(boolean mask) {
        StringBuilder uri = new StringBuilder(scheme).append("://");
        if (user != null || password != null) {
            uri.append(PercentEncoding.encode(user == null ? "" : user));
            if (password != null) {
                uri.append(':').append(mask ? MASK : PercentEncoding.encode(password));
            }
            uri.append('@');
        }
        uri.append(hosts.stream()
                .map(h -> (h.isIpv6() ? "[" + PercentEncoding.encode(h.host(), ":") + "]"
                        : PercentEncoding.encode(h.host())) + ":" + h.port())
                .collect(Collectors.joining(",")));
        if (database != null) {
            uri.append('/').append(PercentEncoding.encode(database));
        }
        if (!parameters.isEmpty()) {
            uri.append('?').append(parameters.entrySet().stream()
                    .map(e -> PercentEncoding.encode(e.getKey()) + "="
                            + (mask && isSecret(e.getKey()) ? MASK : PercentEncoding.encode(e.getValue())))
                    .collect(Collectors.joining("&")));
        }
        return uri.toString();
    }

    private String renderKeyValue(boolean mask) {
        List<String> pairs = new ArrayList<>();
        pairs.add(pair("host", hosts.stream().map(HostPort::host).collect(Collectors.joining(","))));
        List<String> ports = hosts.stream().map(h -> Integer.toString(h.port())).toList();
        pairs.add(pair("port", ports.stream().distinct().count() == 1 ? ports.get(0) : String.join(",", ports)));
        if (database != null) {
            pairs.add(pair("dbname", database));
        }
        if (user != null) {
            pairs.add(pair("user", user));
        }
        if (password != null) {
            pairs.add(pair("password", mask ? MASK : password));
        }
        parameters.forEach((name, value) -> pairs.add(pair(name, mask && isSecret(name) ? MASK : value)));
        return String.join(" ", pairs);
    }

    private static boolean isSecret(String parameter) {
        return JdbcParameters.SECRET.contains(parameter);
    }

    /** key=value, quoting the value when libpq would otherwise split or unescape it. */
    static String pair(String key, String value) {
        boolean plain = !value.isEmpty() && value.chars()
                .noneMatch(c -> Character.isWhitespace(c) || c == '\'' || c == '\\');
        if (plain) {
            return key + "=" + value;
        }
        return key + "='" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /** libpq's host and port lists: one port for all hosts, or one per host (empty = default). */
    private static final class HostList {

        static List<HostPort> parse(String hostList, String portList) {
            if (hostList == null || hostList.isBlank()) {
                throw new InvalidConnectionStringException("no host given");
            }
            String[] names = hostList.split(",", -1);
            String[] ports = portList == null ? new String[] {""} : portList.split(",", -1);
            if (ports.length != 1 && ports.length != names.length) {
                throw new InvalidConnectionStringException(ports.length + " ports given for " + names.length
                        + " hosts; give one port for all hosts or one per host");
            }
            List<HostPort> hosts = new ArrayList<>(names.length);
            for (int i = 0; i < names.length; i++) {
                hosts.add(hostPort(names[i].strip(), ports.length == 1 ? ports[0] : ports[i], i + 1));
            }
            return hosts;
        }

        private static HostPort hostPort(String name, String port, int position) {
            String host = name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
            if (host.isEmpty()) {
                throw new InvalidConnectionStringException("host " + position + " is empty");
            }
            if (host.startsWith("/") || host.startsWith("@")) {
                throw new InvalidConnectionStringException("host " + position
                        + " is a Unix-domain socket, which is not supported; give a TCP host name or address");
            }
            return new HostPort(host, port(port.strip(), position));
        }

        private static int port(String port, int position) {
            if (port.isEmpty()) {
                return DEFAULT_PORT;
            }
            try {
                int value = Integer.parseInt(port);
                if (value >= 1 && value <= 65535) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new InvalidConnectionStringException(
                    "the port of host " + position + " is not a number from 1 to 65535");
        }
    }

    /** libpq's two forms, the URI and key=value. */
    private static final class LibpqSyntax implements ConnectionSyntax {

        @Override
        public ConnectionString parse(String text) {
            return ConnectionString.parse(text);
        }

        @Override
        public String example() {
            return "postgresql://user:password@host:5432/db";
        }

        @Override
        public String description() {
            return "postgresql:// URI or libpq key=value";
        }
    }
}
