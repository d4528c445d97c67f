package io.pgharvest.sink;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks and defaults shared by the settings records of the sink kinds and of the common options. */
public final class SettingChecks {

    /** RFC 9110 token characters. */
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    private SettingChecks() {
    }

    public static <T> T orDefault(T value, T fallback) {
        return value == null ? fallback : value;
    }

    public static void checkRange(List<String> problems, String property, int value, int min, int max) {
        if (value < min || value > max) {
            problems.add(property + " must be between " + min + " and " + max + " (was " + value + ")");
        }
    }

    public static void checkPositive(List<String> problems, String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            problems.add(property + " must be a positive duration (was " + value + ")");
        }
    }

    /**
     * An {@code http(s)://} endpoint given as {@code property}: parsed, with a host and no
     * credentials (a user/password or token option carries them, never logged); each problem named
     * without quoting the URL, which may hold a secret.
     *
     * @return the URI, or null when it does not parse
     */
    public static URI checkHttpUrl(List<String> problems, String property, String url) {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (java.net.URISyntaxException e) {
            problems.add(property + " is not a valid URL");
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            problems.add(property + " must be an http:// or https:// URL");
        } else if (uri.getHost() == null) {
            problems.add(property + " must name a host");
        }
        if (uri.getRawUserInfo() != null) {
            problems.add(property + " must not carry credentials: use user/password or bearer-token");
        }
        return uri;
    }

    /**
     * Scheme, host, port and path of a database or receiver URL ({@code jdbc:} prefix dropped),
     * never its user, password or query parameters; null for null.
     */
    public static String withoutCredentials(String url) {
        if (url == null) {
            return null;
        }
        try {
            var uri = URI.create(url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url);
            if (uri.getHost() == null) {
                return uri.getScheme() + " (address not shown)";
            }
            return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                    + (uri.getRawPath() == null ? "" : uri.getRawPath());
        } catch (IllegalArgumentException e) {
            return "(a URL that does not parse as a URI; not shown)";
        }
    }

    /**
     * Extra request headers given as {@code property} (a map, e.g. {@code X-Scope-OrgID} for a
     * tenant): each name a valid RFC 9110 token and not one the sender sets itself, each value one
     * line. Values may be secrets: a problem names the header, never its value.
     *
     * @param reserved lower-case names the sender or the HTTP client owns
     * @param owner who sets the reserved ones, for the message ("the sink", "the reader")
     */
    public static void checkHeaders(List<String> problems, String property, Map<String, String> headers,
            Set<String> reserved, String owner) {
        headers.forEach((name, value) -> {
            if (!HEADER_NAME.matcher(name).matches()) {
                problems.add(property + ": '" + name + "' is not a valid header name");
            } else if (reserved.contains(name.toLowerCase(Locale.ROOT))) {
                problems.add(property + "." + name + " is set by " + owner + " itself (use user/password or "
                        + "bearer-token for authentication)");
            }
            if (value == null || value.chars().anyMatch(ch -> ch == '\r' || ch == '\n' || ch == 0)) {
                problems.add(property + "." + name + " must be one line of text");
            }
        });
    }
}
