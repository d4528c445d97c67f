package io.pgharvest.kind.patroni;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.BoundedBodies;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a member's {@code /metrics} page (Patroni's REST API, Prometheus text format) and turns
 * the families pgwatch's Patroni dashboards read into measurements laid out as pgwatch stores a
 * Prometheus scrape: one metric per family named after it, each sample a row whose value column
 * is the family's name and whose labels ({@code scope}, {@code name}) are tags.
 */
final class PatroniApiMetrics {

    /** The families pgwatch's "patroni" preset and its Patroni overview dashboard read. */
    static final Set<String> FAMILIES = Set.of("patroni_version", "patroni_postgres_running",
            "patroni_postmaster_start_time", "patroni_primary", "patroni_replica", "patroni_standby_leader",
            "patroni_sync_standby", "patroni_quorum_standby", "patroni_cluster_unlocked", "patroni_xlog_location",
            "patroni_xlog_received_location", "patroni_xlog_replayed_location", "patroni_xlog_replayed_timestamp",
            "patroni_xlog_paused", "patroni_postgres_streaming", "patroni_postgres_in_archive_recovery",
            "patroni_postgres_server_version", "patroni_dcs_last_seen", "patroni_pending_restart",
            "patroni_is_paused", "patroni_failsafe_mode_is_active", "patroni_postgres_timeline",
            "patroni_postgres_state");

    /**
     * Largest {@code /metrics} page read: Patroni's is about 4 KB (a line per family and member
     * label set); a longer page is refused unread past this.
     */
    static final int MAX_PAGE_BYTES = 1 << 20;

    private final HttpClient http;
    private final Duration timeout;

    PatroniApiMetrics(HttpClient http, Duration timeout) {
        this.http = http;
        this.timeout = timeout;
    }

    /** The {@code /metrics} address beside a member's published {@code api_url}. */
    static URI metricsUri(String apiUrl) {
        URI api = URI.create(apiUrl);
        return api.resolve("/metrics");
    }

    /** Reads {@code apiUrl}'s metrics: each family's rows by family name. */
    Map<String, List<Measurement.Row>> read(String apiUrl) throws IOException {
        URI uri = metricsUri(apiUrl);
        HttpResponse<BoundedBodies.Body> response;
        try {
            response = BoundedBodies.send(http, HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
                    MAX_PAGE_BYTES, 0, timeout); // an error's body is not shown
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + uri, e);
        } catch (IOException e) {
            throw new IOException(uri + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
                    e);
        }
        if (response.statusCode() != 200) {
            throw new IOException(uri + " answered HTTP " + response.statusCode());
        }
        if (response.body().cut()) {
            throw new IOException(uri + " answered with more than " + MAX_PAGE_BYTES + " bytes; refused unread");
        }
        return families(response.body().text());
    }

    /**
     * Parses the text format leniently: Patroni 3.0 writes {@code patroni_postgres_server_version {scope="x"}}
     * with a space before the labels. Comment lines, unknown families and unparsable values are skipped.
     */
    static List<Measurement> parse(String text, String source, Map<String, String> tags, Instant at) {
        var measurements = new ArrayList<Measurement>();
        families(text).forEach((family, rows) -> measurements.add(new Measurement(source, family, at, rows, tags)));
        return measurements;
    }

    /** {@link #parse}'s rows by family, in the page's order. */
    static Map<String, List<Measurement.Row>> families(String text) {
        var rowsByFamily = new LinkedHashMap<String, List<Measurement.Row>>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int nameEnd = 0;
            while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && !Character.isWhitespace(line.charAt(nameEnd))) {
                nameEnd++;
            }
            String family = line.substring(0, nameEnd);
            if (!FAMILIES.contains(family)) {
                continue;
            }
            String rest = line.substring(nameEnd).strip();
            var labels = new LinkedHashMap<String, String>();
            if (rest.startsWith("{")) {
                int close = rest.indexOf('}');
                if (close < 0) {
                    continue;
                }
                parseLabels(rest.substring(1, close), labels);
                rest = rest.substring(close + 1).strip();
            }
            String[] valueAndTime = rest.split("\\s+");
            Double value = number(valueAndTime[0]);
            if (value == null) {
                continue;
            }
            var values = new LinkedHashMap<String, Object>();
            values.put(family, value);
            rowsByFamily.computeIfAbsent(family, f -> new ArrayList<>()).add(new Measurement.Row(values, labels));
        }
        return rowsByFamily;
    }

    private static void parseLabels(String text, Map<String, String> labels) {
        int i = 0;
        while (i < text.length()) {
            int eq = text.indexOf('=', i);
            if (eq < 0 || eq + 1 >= text.length() || text.charAt(eq + 1) != '"') {
                return;
            }
            String name = text.substring(i, eq).strip();
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            for (; j < text.length() && text.charAt(j) != '"'; j++) {
                char c = text.charAt(j);
                if (c == '\\' && j + 1 < text.length()) {
                    char next = text.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
            }
            labels.put(name, value.toString());
            i = j + 1;
            while (i < text.length() && (text.charAt(i) == ',' || Character.isWhitespace(text.charAt(i)))) {
                i++;
            }
        }
    }

    private static Double number(String text) {
        try {
            return Double.valueOf(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
