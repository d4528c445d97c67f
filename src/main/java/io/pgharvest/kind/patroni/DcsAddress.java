package io.pgharvest.kind.patroni;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.ConnectionSyntax;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import io.pgharvest.model.connection.ParsedConnection;
import io.pgharvest.model.connection.PercentEncoding;
import io.pgharvest.model.connection.UriHosts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SequencedMap;
import java.util.Set;

/**
 * Where a {@code patroni} source finds its cluster: the DCS URI as pgwatch writes it,
 * {@code etcd://[etcduser:etcdpassword@]host:port[,host:port...]/namespace[/scope][?params]}.
 *
 * <p>The path names a Patroni namespace and, optionally, one scope (cluster) in it; without a
 * scope every cluster in the namespace is collected. Only etcd's v3 API is read. The user
 * information is etcd's login. Query parameters are the monitoring session's libpq settings for
 * every member ({@code user}, {@code password}, {@code dbname}, {@code sslmode}, ...): Patroni
 * publishes each member's address but no credentials. pgwatch's TLS parameters
 * ({@code ca_file}, {@code cert_file}, {@code key_file}) are refused, since this reader speaks
 * plain HTTP to etcd.
 *
 * <p>Both passwords are secrets: {@link #masked()} hides them, {@link #toString()} returns it.
 */
record DcsAddress(List<ConnectionString.HostPort> endpoints, String namespace, Optional<String> scope,
        Optional<String> etcdUser, Optional<String> etcdPassword, SequencedMap<String, String> memberParameters)
        implements ParsedConnection {

    static final String SCHEME = "etcd";
    static final int DEFAULT_PORT = 2379;

    /** How a {@code patroni} source's connection string reads ({@link PatroniKindRules#connectionSyntax()}). */
    static final ConnectionSyntax SYNTAX = new DcsSyntax();

    private static final Set<String> TLS_PARAMETERS = Set.of("ca_file", "cert_file", "key_file");
    /** Parameters that name the server; for members they come from Patroni, not from the operator. */
    private static final Set<String> ADDRESS_PARAMETERS = Set.of("host", "hostaddr", "port");

    public DcsAddress {
        endpoints = List.copyOf(endpoints);
        memberParameters = java.util.Collections.unmodifiableSequencedMap(new LinkedHashMap<>(memberParameters));
    }

    /**
     * Parses a DCS URI.
     *
     * @throws InvalidConnectionStringException naming what is wrong; never quoting a password
     */
    static DcsAddress parse(String text) {
        String trimmed = text.strip();
        int schemeEnd = trimmed.indexOf("://");
        if (schemeEnd < 0) {
            throw new InvalidConnectionStringException("a Patroni source needs the DCS address as"
                    + " etcd://host:port[,host:port]/namespace[/scope]");
        }
        String scheme = trimmed.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        if (!scheme.equals(SCHEME)) {
            throw new InvalidConnectionStringException("DCS '" + scheme + "' is not supported; pgharvest reads"
                    + " Patroni clusters from etcd (v3 API): etcd://host:port/namespace[/scope]");
        }
        String rest = trimmed.substring(schemeEnd + 3);
        int hostEnd = indexOfAny(rest, "/?");
        String authority = hostEnd < 0 ? rest : rest.substring(0, hostEnd);
        String pathAndQuery = hostEnd < 0 ? "" : rest.substring(hostEnd);
        int queryStart = pathAndQuery.indexOf('?');
        String path = queryStart < 0 ? pathAndQuery : pathAndQuery.substring(0, queryStart);
        String query = queryStart < 0 ? "" : pathAndQuery.substring(queryStart + 1);

        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String info = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = info.indexOf(':');
            user = decode(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : decode(info.substring(colon + 1));
        }
        List<ConnectionString.HostPort> endpoints = new ArrayList<>();
        for (UriHosts.Entry entry : UriHosts.split(authority, position -> "etcd endpoint " + position)) {
            endpoints.add(endpoint(entry));
        }

        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                segments.add(decode(segment));
            }
        }
        if (segments.isEmpty() || segments.size() > 2) {
            throw new InvalidConnectionStringException("the DCS path must be /namespace or /namespace/scope"
                    + " (Patroni's namespace and cluster name, e.g. /service/batman)");
        }
        var parameters = new LinkedHashMap<String, String>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            if (TLS_PARAMETERS.contains(key)) {
                throw new InvalidConnectionStringException("'" + key + "' is not supported: pgharvest reaches etcd"
                        + " over plain HTTP only");
            }
            if (ADDRESS_PARAMETERS.contains(key)) {
                throw new InvalidConnectionStringException("'" + key + "' cannot be set: each member's address"
                        + " comes from Patroni's conn_url");
            }
            parameters.put(key, value);
        }
        var address = new DcsAddress(endpoints, segments.get(0),
                Optional.ofNullable(segments.size() == 2 ? segments.get(1) : null),
                Optional.ofNullable(user).filter(u -> !u.isEmpty()), Optional.ofNullable(password), parameters);
        // The member settings must make a valid PostgreSQL connection (pgjdbc-supported parameters).
        ConnectionString probe = ConnectionString.parse(address.memberConnStr("127.0.0.1", 5432, null));
        if (!probe.unsupportedParameters().isEmpty()) {
            throw new InvalidConnectionStringException("unsupported member connection parameters: "
                    + String.join(", ", probe.unsupportedParameters()));
        }
        return address;
    }

    /** The etcd key prefix that holds what this source collects: {@code /namespace/} or {@code /namespace/scope/}. */
    String keyPrefix() {
        return "/" + namespace + "/" + scope.map(s -> s + "/").orElse("");
    }

    /**
     * A member's connection string (key=value form): Patroni's host and port, the database from
     * the parameters, else Patroni's, else {@code postgres}; and the operator's member settings.
     */
    String memberConnStr(String host, int port, String patroniDatabase) {
        var keywords = new LinkedHashMap<String, String>();
        keywords.put("host", host);
        keywords.put("port", Integer.toString(port));
        if (!memberParameters.containsKey("dbname")) {
            keywords.put("dbname", patroniDatabase == null || patroniDatabase.isEmpty() ? "postgres" : patroniDatabase);
        }
        keywords.putAll(memberParameters);
        StringBuilder out = new StringBuilder();
        keywords.forEach((key, value) -> {
            if (!out.isEmpty()) {
                out.append(' ');
            }
            out.append(key).append("='").append(value.replace("\\", "\\\\").replace("'", "\\'")).append('\'');
        });
        return out.toString();
    }

    /** Every secret this address holds, for scrubbing error messages. */
    @Override
    public List<String> secrets() {
        var secrets = new ArrayList<String>();
        etcdPassword.filter(p -> !p.isEmpty()).ifPresent(secrets::add);
        Optional.ofNullable(memberParameters.get("password")).filter(p -> !p.isEmpty()).ifPresent(secrets::add);
        return secrets;
    }

    /** The address with both passwords replaced by {@link ConnectionString#MASK}. */
    @Override
    public String masked() {
        return render(true);
    }

    /** The address in full, passwords included: for storage only. */
    @Override
    public String render() {
        return render(false);
    }

    /** The members' password: Patroni publishes no credentials, so the sessions use this one. */
    @Override
    public DcsAddress withSessionPassword(String password) {
        return withMemberPassword(password);
    }

    @Override
    public ConnectionSyntax syntax() {
        return SYNTAX;
    }

    /** The member parameters: every member's session is opened with them. */
    @Override
    public Map<String, String> sessionParameters() {
        return memberParameters;
    }

    /** Either password, etcd's or the members'. */
    @Override
    public boolean passwordIsMask() {
        return etcdPassword.filter(ConnectionString.MASK::equals).isPresent()
                || ConnectionString.MASK.equals(memberParameters.get("password"));
    }

    /** A copy whose member password is {@code password} (the API keeps a stored password this way). */
    DcsAddress withMemberPassword(String password) {
        var parameters = new LinkedHashMap<>(memberParameters);
        parameters.put("password", password);
        return new DcsAddress(endpoints, namespace, scope, etcdUser, etcdPassword, parameters);
    }

    private String render(boolean mask) {
        StringBuilder uri = new StringBuilder(SCHEME).append("://");
        etcdUser.ifPresent(u -> {
            uri.append(PercentEncoding.encode(u));
            etcdPassword.ifPresent(p -> uri.append(':').append(mask ? ConnectionString.MASK : PercentEncoding.encode(p)));
            uri.append('@');
        });
        for (int i = 0; i < endpoints.size(); i++) {
            uri.append(i == 0 ? "" : ",").append(endpoints.get(i));
        }
        uri.append('/').append(PercentEncoding.encode(namespace));
        scope.ifPresent(s -> uri.append('/').append(PercentEncoding.encode(s)));
        char separator = '?';
        for (Map.Entry<String, String> parameter : memberParameters.entrySet()) {
            String value = mask && parameter.getKey().equals("password") ? ConnectionString.MASK
                    : PercentEncoding.encode(parameter.getValue());
            uri.append(separator).append(PercentEncoding.encode(parameter.getKey())).append('=').append(value);
            separator = '&';
        }
        return uri.toString();
    }

    @Override
    public String toString() {
        return masked();
    }

    private static ConnectionString.HostPort endpoint(UriHosts.Entry entry) {
        if (entry.host().isEmpty()) {
            throw new InvalidConnectionStringException("an etcd endpoint is empty");
        }
        if (entry.port().isEmpty()) {
            return new ConnectionString.HostPort(entry.host(), DEFAULT_PORT);
        }
        try {
            return new ConnectionString.HostPort(entry.host(), Integer.parseInt(entry.port()));
        } catch (NumberFormatException e) {
            throw new InvalidConnectionStringException("the port of etcd endpoint " + entry.host()
                    + " is not a number from 1 to 65535");
        }
    }

    private static String decode(String text) {
        return PercentEncoding.decode(text, "the DCS address");
    }

    private static int indexOfAny(String text, String chars) {
        for (int i = 0; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    /** etcd's address as pgwatch writes it for Patroni. */
    private static final class DcsSyntax implements ConnectionSyntax {

        @Override
        public DcsAddress parse(String text) {
            return DcsAddress.parse(text);
        }

        @Override
        public String example() {
            return "etcd://host:2379/service/cluster?user=monitor&password=secret";
        }

        @Override
        public String description() {
            return "etcd's address and Patroni's namespace, optionally one cluster:"
                    + " etcd://[user:password@]host:port[,host:port]/namespace[/scope]; query parameters are the"
                    + " members' libpq settings (user, password, dbname, sslmode)";
        }
    }
}
