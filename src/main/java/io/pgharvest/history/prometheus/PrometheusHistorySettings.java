package io.pgharvest.history.prometheus;

import io.pgharvest.sink.SettingChecks;
import io.pgharvest.support.plugin.PluginSettings;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The options of a {@code prometheus} entry of {@code pgharvest.history}: a store of the Prometheus
 * HTTP query API (Prometheus, VictoriaMetrics, Mimir, Thanos) that pgharvest's
 * {@code prometheus-remote-write} sink writes to. Secrets are never quoted back.
 *
 * @param url the query API's base, {@code http(s)://host:port[/prefix]}; the reader appends
 *     {@code /api/v1/query_range} and {@code /api/v1/query}. May differ from the write URL
 * @param user basic authentication user (with {@code password})
 * @param password basic authentication password; a secret, never logged
 * @param bearerToken sent as {@code Authorization: Bearer}; a secret, never logged
 * @param headers extra headers sent with every query, e.g. {@code X-Scope-OrgID} naming a Mimir or
 *     Thanos tenant; values are secrets, never logged
 * @param requestTimeout the longest one query waits for the store's answer
 * @param retention how far back the store keeps samples (an earlier start is refused); 0: unknown
 */
public record PrometheusHistorySettings(String url, String user, String password, String bearerToken,
        Map<String, String> headers, Duration requestTimeout, Duration retention) implements PluginSettings {

    /** The headers the reader sets itself or that the JDK's HTTP client owns (it refuses to send them). */
    private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "content-type", "accept",
            "content-length", "host", "connection", "expect", "upgrade", "transfer-encoding");

    public PrometheusHistorySettings {
        // Sorted: problems are named, and headers sent, in one order.
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(headers));
        requestTimeout = requestTimeout == null ? Duration.ofSeconds(10) : requestTimeout;
        retention = retention == null ? Duration.ZERO : retention;
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        checkUrl(prefix, problems);
        if ((user == null) != (password == null)) {
            problems.add(prefix + ".user and " + prefix + ".password go together (basic authentication)");
        }
        if (bearerToken != null && user != null) {
            problems.add(prefix + ".bearer-token excludes user/password: choose one authentication");
        }
        if (bearerToken != null && bearerToken.isBlank()) {
            problems.add(prefix + ".bearer-token must not be empty");
        }
        SettingChecks.checkHeaders(problems, prefix + ".headers", headers, RESERVED_HEADERS, "the reader");
        if (requestTimeout.compareTo(Duration.ofMillis(100)) < 0 || requestTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
            problems.add(prefix + ".request-timeout must be 100ms to 5m (was " + requestTimeout + ")");
        }
        if (retention.isNegative()) {
            problems.add(prefix + ".retention must be 0 (unknown) or positive (was " + retention + ")");
        }
        return problems;
    }

    /** The URL is never quoted: its query string or user info may hold a secret. */
    private void checkUrl(String prefix, List<String> problems) {
        if (url == null || url.isBlank()) {
            problems.add(prefix + ".url is required for a prometheus history reader (the query API's base, e.g. "
                    + "http://prometheus:9090 or http://victoria-metrics:8428)");
            return;
        }
        URI uri = SettingChecks.checkHttpUrl(problems, prefix + ".url", url);
        if (uri == null) {
            return;
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            problems.add(prefix + ".url must have neither a ?query nor a #fragment (the reader adds its own)");
        }
    }

    /** Never shows the password, the token or header values. */
    @Override
    public String toString() {
        return "PrometheusHistorySettings[url=" + url + ", user=" + user + (password == null ? "" : ", password=***")
                + (bearerToken == null ? "" : ", bearerToken=***") + ", headers=" + headers.keySet() + ", requestTimeout=" + requestTimeout
                + ", retention=" + retention + "]";
    }
}
