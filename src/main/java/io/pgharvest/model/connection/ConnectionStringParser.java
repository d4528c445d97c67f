package io.pgharvest.model.connection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.SequencedMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits connection text into libpq keywords, following libpq's rules for both forms.
 *
 * <p>A URI's parts become the keywords libpq gives them internally: the host list becomes
 * {@code host=h1,h2} and {@code port=p1,p2} (empty for a host without a port), userinfo becomes
 * {@code user} and {@code password}, the path {@code dbname}; query parameters follow and
 * override them. Error messages never quote the text: a misplaced character in a URI can shift
 * password characters into any other part, so URI errors name positions, and key=value errors
 * name only libpq keywords.
 */
final class ConnectionStringParser {

    /** Parse result: the form, the URI scheme as written (null for key=value), keywords in text order. */
    record Parsed(ConnectionString.Format format, String scheme, SequencedMap<String, String> keywords) {
    }

    private static final Pattern URI_SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.:-]*)://");
    private static final List<String> URI_SCHEMES = List.of("postgresql", "postgres");

    private ConnectionStringParser() {
    }

    static Parsed parse(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidConnectionStringException("it is empty");
        }
        String trimmed = text.strip();
        Matcher scheme = URI_SCHEME.matcher(trimmed);
        if (scheme.find()) {
            String name = scheme.group(1);
            if (!URI_SCHEMES.contains(name.toLowerCase(Locale.ROOT))) {
                throw new InvalidConnectionStringException("unknown URI scheme '" + name
                        + "'; expected postgresql:// or postgres:// (or libpq key=value pairs)");
            }
            return new Parsed(ConnectionString.Format.URI, name, parseUri(trimmed.substring(scheme.end())));
        }
        return new Parsed(ConnectionString.Format.KEY_VALUE, null, parseKeyValue(trimmed));
    }

    private static SequencedMap<String, String> parseUri(String rest) {
        SequencedMap<String, String> keywords = new LinkedHashMap<>();
        int authorityEnd = indexOfAny(rest, "/?");
        String authority = rest.substring(0, authorityEnd);
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            parseUserInfo(authority.substring(0, at), keywords);
        }
        parseHostList(authority.substring(at + 1), keywords);
        String pathAndQuery = rest.substring(authorityEnd);
        int queryStart = pathAndQuery.indexOf('?');
        String path = queryStart < 0 ? pathAndQuery : pathAndQuery.substring(0, queryStart);
        if (path.length() > 1) {
            keywords.put("dbname", PercentEncoding.decode(path.substring(1), "the database name"));
        }
        if (queryStart >= 0) {
            parseQuery(pathAndQuery.substring(queryStart + 1), keywords);
        }
        return keywords;
    }

    private static void parseUserInfo(String userInfo, SequencedMap<String, String> keywords) {
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
        if (!user.isEmpty()) {
            keywords.put("user", PercentEncoding.decode(user, "the user name"));
        }
        if (colon >= 0) {
            keywords.put("password", PercentEncoding.decode(userInfo.substring(colon + 1), "the password"));
        }
    }

    private static void parseHostList(String hostList, SequencedMap<String, String> keywords) {
        if (hostList.isEmpty()) {
            return;
        }
        List<String> hosts = new ArrayList<>();
        List<String> ports = new ArrayList<>();
        for (UriHosts.Entry entry : UriHosts.split(hostList, position -> "host " + position + " of the URI")) {
            hosts.add(entry.host());
            ports.add(entry.port());
        }
        keywords.put("host", String.join(",", hosts));
        if (ports.stream().anyMatch(port -> !port.isEmpty())) {
            keywords.put("port", String.join(",", ports));
        }
    }

    private static void parseQuery(String query, SequencedMap<String, String> keywords) {
        String[] pairs = query.split("&");
        for (int i = 0; i < pairs.length; i++) {
            if (pairs[i].isEmpty()) {
                continue;
            }
            int eq = pairs[i].indexOf('=');
            if (eq < 0) {
                throw new InvalidConnectionStringException("URI query parameter " + (i + 1) + " has no '='");
            }
            String position = "URI query parameter " + (i + 1);
            String key = PercentEncoding.decode(pairs[i].substring(0, eq), position);
            String value = PercentEncoding.decode(pairs[i].substring(eq + 1), position);
            if (key.equals("ssl") && value.equals("true")) {
                // libpq accepts this JDBC spelling in URIs and means sslmode=require by it
                key = "sslmode";
                value = "require";
            }
            keywords.put(key, value);
        }
    }

    /** libpq's conninfo syntax: {@code key = value} separated by whitespace; values may be 'quoted'. */
    private static SequencedMap<String, String> parseKeyValue(String text) {
        SequencedMap<String, String> keywords = new LinkedHashMap<>();
        int i = 0;
        int pair = 0;
        while (true) {
            i = skipWhitespace(text, i);
            if (i >= text.length()) {
                return keywords;
            }
            pair++;
            int keyStart = i;
            while (i < text.length() && !Character.isWhitespace(text.charAt(i)) && text.charAt(i) != '=') {
                i++;
            }
            String key = text.substring(keyStart, i);
            String keyName = describeKey(key, pair);
            i = skipWhitespace(text, i);
            if (key.isEmpty() || i >= text.length() || text.charAt(i) != '=') {
                throw new InvalidConnectionStringException(key.isEmpty() ? "key=value pair " + pair + " has no key"
                        : "missing '=' after " + keyName + " (quote values that contain spaces: key='a b')");
            }
            i = skipWhitespace(text, i + 1);
            StringBuilder value = new StringBuilder();
            i = text.startsWith("'", i) ? readQuoted(text, i + 1, value, keyName) : readBare(text, i, value);
            keywords.put(key, value.toString());
        }
    }

    private static int readQuoted(String text, int start, StringBuilder value, String keyName) {
        int i = start;
        while (true) {
            if (i >= text.length()) {
                throw new InvalidConnectionStringException("unterminated quoted value of " + keyName);
            }
            char c = text.charAt(i++);
            if (c == '\'') {
                if (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
                    throw new InvalidConnectionStringException("text directly after the quoted value of " + keyName
                            + " (escape quotes inside values as \\')");
                }
                return i;
            }
            if (c == '\\') {
                if (i >= text.length()) {
                    throw new InvalidConnectionStringException("unterminated quoted value of " + keyName);
                }
                c = text.charAt(i++);
            }
            value.append(c);
        }
    }

    private static int readBare(String text, int start, StringBuilder value) {
        int i = start;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
            char c = text.charAt(i++);
            if (c == '\\' && i < text.length()) {
                c = text.charAt(i++);
            }
            value.append(c);
        }
        return i;
    }

    /** Names a key for a message: by name when it is a libpq keyword, else by position only. */
    private static String describeKey(String key, int pair) {
        return JdbcParameters.LIBPQ_KEYWORDS.contains(key) ? "'" + key + "'" : "the key of key=value pair " + pair;
    }

    private static int skipWhitespace(String text, int from) {
        int i = from;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int indexOfAny(String text, String characters) {
        for (int i = 0; i < text.length(); i++) {
            if (characters.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return text.length();
    }
}
