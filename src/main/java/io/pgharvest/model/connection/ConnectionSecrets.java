package io.pgharvest.model.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * Connection text that is not a source's own (a server's {@code primary_conninfo}, a setting of an
 * extension) with its secrets removed: read by the same parser as a source's connection string,
 * both forms, so a password is found by where it stands in libpq's grammar, not by a pattern.
 *
 * <p>Unlike {@link ConnectionString#parse}, nothing here needs a host or valid parameters: a
 * standby's {@code primary_conninfo} may name a Unix socket or leave the host to the environment.
 * Text that names itself a connection but does not parse is masked whole: a value the parser
 * cannot read is a value whose secret it cannot find.
 */
public final class ConnectionSecrets {

    private static final String PASSWORD = "password";

    private ConnectionSecrets() {
    }

    /**
     * {@code conninfo} with the values of {@code password} and {@code sslpassword} replaced by
     * {@link ConnectionString#MASK}, in the form it was written; blank text as it is; text that
     * does not parse as a whole {@link ConnectionString#MASK}.
     */
    public static String masked(String conninfo) {
        if (conninfo == null || conninfo.isBlank()) {
            return conninfo;
        }
        ConnectionStringParser.Parsed parsed;
        try {
            parsed = ConnectionStringParser.parse(conninfo);
        } catch (InvalidConnectionStringException e) {
            return ConnectionString.MASK;
        }
        if (parsed.keywords().keySet().stream().noneMatch(JdbcParameters.SECRET::contains)) {
            return conninfo; // nothing to remove: the text stays exactly as the server shows it
        }
        return parsed.format() == ConnectionString.Format.URI ? uri(parsed.scheme(), parsed.keywords())
                : keyValue(parsed.keywords());
    }

    /**
     * Whether {@code text} may hold a connection secret: a {@code password} keyword (either
     * spelling) or a URI with a password in its user information. A cheap first look, so that
     * only such text is parsed; {@link #maskedIfConnection} makes the decision.
     */
    public static boolean mayHoldSecret(String text) {
        return containsPasswordWord(text) || text.contains("://") && SecretRedaction.hasUriPassword(text);
    }

    /** A case-insensitive search without a lower-cased copy: this runs on every string of a settings row. */
    private static boolean containsPasswordWord(String text) {
        for (int i = 0, last = text.length() - PASSWORD.length(); i <= last; i++) {
            char first = text.charAt(i);
            // The first letter before the region: most values (numbers, words) have no p at all.
            if ((first == 'p' || first == 'P') && text.regionMatches(true, i, PASSWORD, 0, PASSWORD.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Text that may or may not be connection text (any setting's value): its connection secrets
     * removed when it parses as connection text, else the passwords the message rule finds by
     * structure ({@link SecretRedaction}), else unchanged.
     */
    public static String maskedIfConnection(String text) {
        if (text == null || !mayHoldSecret(text)) {
            return text;
        }
        try {
            ConnectionStringParser.parse(text);
        } catch (InvalidConnectionStringException e) {
            return SecretRedaction.redact(text);
        }
        return masked(text);
    }

    private static String keyValue(SequencedMap<String, String> keywords) {
        List<String> pairs = new ArrayList<>(keywords.size());
        keywords.forEach((key, value) -> pairs.add(ConnectionString.pair(key, shown(key, value))));
        return String.join(" ", pairs);
    }

    /** The URI again from libpq's keywords: user information, host list, database, then parameters. */
    private static String uri(String scheme, SequencedMap<String, String> keywords) {
        StringBuilder uri = new StringBuilder(scheme).append("://");
        String user = keywords.get("user");
        String password = keywords.get("password");
        if (user != null || password != null) {
            uri.append(PercentEncoding.encode(user == null ? "" : user));
            if (password != null) {
                uri.append(':').append(ConnectionString.MASK);
            }
            uri.append('@');
        }
        String hosts = keywords.get("host");
        if (hosts != null) {
            String[] names = hosts.split(",", -1);
            String[] ports = keywords.getOrDefault("port", "").split(",", -1);
            for (int i = 0; i < names.length; i++) {
                String host = names[i];
                uri.append(i == 0 ? "" : ",").append(host.indexOf(':') >= 0
                        ? "[" + PercentEncoding.encode(host, ":") + "]" : PercentEncoding.encode(host));
                String port = i < ports.length ? ports[i] : "";
                uri.append(port.isEmpty() ? "" : ":" + port);
            }
        }
        String database = keywords.get("dbname");
        if (database != null) {
            uri.append('/').append(PercentEncoding.encode(database));
        }
        String separator = "?";
        for (Map.Entry<String, String> entry : keywords.entrySet()) {
            String key = entry.getKey();
            if (key.equals("user") || key.equals("password") || key.equals("host") || key.equals("port")
                    || key.equals("dbname")) {
                continue;
            }
            uri.append(separator).append(PercentEncoding.encode(key)).append('=')
                    .append(JdbcParameters.SECRET.contains(key) ? ConnectionString.MASK
                            : PercentEncoding.encode(entry.getValue()));
            separator = "&";
        }
        return uri.toString();
    }

    private static String shown(String key, String value) {
        return JdbcParameters.SECRET.contains(key) ? ConnectionString.MASK : value;
    }
}
