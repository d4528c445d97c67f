package io.pgharvest.sink;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Start-up checks of a {@code prometheus-remote-write} entry. Secrets (password, bearer token,
 * header values, the URL) are never quoted back.
 */
final class RemoteWriteOptions {

    /** RFC 9110 token characters. */
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    /**
     * Headers the sink sets itself (the protocol's, and authentication from its own options) or
     * that the HTTP client owns.
     */
    private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "content-type", "content-encoding",
            "content-length", "x-prometheus-remote-write-version", "host", "connection", "expect", "upgrade",
            "transfer-encoding", "user-agent");

    private RemoteWriteOptions() {
    }

    static List<String> problems(String prefix, SinkProperties p) {
        var problems = new ArrayList<String>();
        checkUrl(prefix, p, problems);
        if ((p.user() == null) != (p.password() == null)) {
            problems.add(prefix + ".user and " + prefix + ".password go together (basic authentication)");
        }
        if (p.bearerToken() != null && (p.user() != null || p.password() != null)) {
            problems.add(prefix + ".bearer-token excludes user/password: choose one authentication");
        }
        if (p.bearerToken() != null && p.bearerToken().isBlank()) {
            problems.add(prefix + ".bearer-token must not be empty");
        }
        p.headers().forEach((name, value) -> {
            if (!HEADER_NAME.matcher(name).matches()) {
                problems.add(prefix + ".headers: '" + name + "' is not a valid header name");
            } else if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                problems.add(prefix + ".headers." + name + " is set by the sink itself (use user/password or "
                        + "bearer-token for authentication)");
            }
            if (value == null || value.chars().anyMatch(ch -> ch == '\r' || ch == '\n' || ch == 0)) {
                problems.add(prefix + ".headers." + name + " must be one line of text");
            }
        });
        if (p.port() != null) {
            problems.add(prefix + ".port applies to prometheus sinks only (the receiver's port is part of url)");
        }
        if (p.path() != null) {
            problems.add(prefix + ".path applies to prometheus and jsonfile sinks only (the receiver's path is part "
                    + "of url)");
        }
        checkTimeout(problems, prefix + ".connect-timeout", p.connectTimeout());
        checkTimeout(problems, prefix + ".request-timeout", p.requestTimeout());
        return problems;
    }

    private static void checkUrl(String prefix, SinkProperties p, List<String> problems) {
        if (p.url() == null || p.url().isBlank()) {
            problems.add(prefix + ".url is required for a prometheus-remote-write sink (the receiver's write "
                    + "endpoint, e.g. http://prometheus:9090/api/v1/write)");
            return;
        }
        URI uri;
        try {
            uri = new URI(p.url().strip());
        } catch (URISyntaxException e) {
            problems.add(prefix + ".url is not a valid URL");
            return;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            problems.add(prefix + ".url must be an http:// or https:// URL");
        } else if (uri.getHost() == null) {
            problems.add(prefix + ".url must name a host");
        }
        if (uri.getRawUserInfo() != null) {
            problems.add(prefix + ".url must not carry credentials: use user/password or bearer-token");
        }
        if (uri.getRawFragment() != null) {
            problems.add(prefix + ".url must not have a #fragment");
        }
        if (p.tlsCaFile() != null && !scheme.equals("https")) {
            problems.add(prefix + ".tls-ca-file needs an https:// url");
        }
    }

    private static void checkTimeout(List<String> problems, String property, Duration value) {
        if (value != null && (value.isNegative() || value.isZero())) {
            problems.add(property + " must be a positive duration (was " + value + ")");
        }
    }
}
