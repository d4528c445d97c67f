package io.pgharvest.sink.remotewrite;

import static io.pgharvest.sink.SettingChecks.checkPositive;
import static io.pgharvest.sink.SettingChecks.orDefault;

import io.pgharvest.sink.SettingChecks;
import io.pgharvest.sink.SinkSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options of a {@code prometheus-remote-write} sink entry of {@code pgharvest.sinks}. Secrets
 * (password, bearer token, header values, the URL) are never quoted back.
 *
 * @param url the receiver's {@code http(s)://} write endpoint; never logged with its query string
 * @param user basic authentication user
 * @param password basic authentication password; a secret, never logged
 * @param bearerToken sent as {@code Authorization: Bearer}; a secret, never logged; excludes
 *     user/password (basic authentication)
 * @param headers extra request headers, e.g. {@code X-Scope-OrgID} for a tenant; values are never logged
 * @param tlsCaFile PEM file of the certificate authorities that an {@code https} receiver's
 *     certificate must chain to, instead of the JDK's default ones
 * @param connectTimeout longest wait for a TCP (and TLS) connection
 * @param requestTimeout longest wait for the receiver's answer to one request
 */
public record RemoteWriteSinkProperties(
        String url,
        String user,
        String password,
        String bearerToken,
        Map<String, String> headers,
        Path tlsCaFile,
        Duration connectTimeout,
        Duration requestTimeout) implements SinkSettings {

    /**
     * Headers the sink sets itself (the protocol's, and authentication from its own options) or
     * that the HTTP client owns.
     */
    private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "content-type", "content-encoding",
            "content-length", "x-prometheus-remote-write-version", "host", "connection", "expect", "upgrade",
            "transfer-encoding", "user-agent");

    /** Absent options take their documented defaults here. */
    public RemoteWriteSinkProperties {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        connectTimeout = orDefault(connectTimeout, Duration.ofSeconds(5));
        requestTimeout = orDefault(requestTimeout, Duration.ofSeconds(30));
    }

    /** A receiver at {@code url} without authentication, every other option at its default. */
    public static RemoteWriteSinkProperties of(String url) {
        return new RemoteWriteSinkProperties(url, null, null, null, null, null, null, null);
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        checkUrl(prefix, problems);
        if ((user == null) != (password == null)) {
            problems.add(prefix + ".user and " + prefix + ".password go together (basic authentication)");
        }
        if (bearerToken != null && (user != null || password != null)) {
            problems.add(prefix + ".bearer-token excludes user/password: choose one authentication");
        }
        if (bearerToken != null && bearerToken.isBlank()) {
            problems.add(prefix + ".bearer-token must not be empty");
        }
        SettingChecks.checkHeaders(problems, prefix + ".headers", headers, RESERVED_HEADERS, "the sink");
        checkPositive(problems, prefix + ".connect-timeout", connectTimeout);
        checkPositive(problems, prefix + ".request-timeout", requestTimeout);
        return problems;
    }

    /** Scheme, host, port and path of the receiver. */
    @Override
    public String destination(Path dataDir) {
        return SettingChecks.withoutCredentials(url);
    }

    private void checkUrl(String prefix, List<String> problems) {
        if (url == null || url.isBlank()) {
            problems.add(prefix + ".url is required for a prometheus-remote-write sink (the receiver's write "
                    + "endpoint, e.g. http://prometheus:9090/api/v1/write)");
            return;
        }
        URI uri = SettingChecks.checkHttpUrl(problems, prefix + ".url", url);
        if (uri == null) {
            return;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getRawFragment() != null) {
            problems.add(prefix + ".url must not have a #fragment");
        }
        if (tlsCaFile != null && !scheme.equals("https")) {
            problems.add(prefix + ".tls-ca-file needs an https:// url");
        }
    }

    /** Never shows the URL (its query may carry a token), the password, the token or header values. */
    @Override
    public String toString() {
        return "RemoteWriteSinkProperties[url=" + (url == null ? "none" : "***") + ", user=" + user
                + (password == null ? "" : ", password=***") + (bearerToken == null ? "" : ", bearerToken=***")
                + ", headers=" + headers.keySet() + ", tlsCaFile=" + tlsCaFile + ", connectTimeout=" + connectTimeout
                + ", requestTimeout=" + requestTimeout + "]";
    }
}
