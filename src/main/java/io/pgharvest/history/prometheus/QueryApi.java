package io.pgharvest.history.prometheus;

import io.pgharvest.history.HistoryReadException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Prometheus HTTP query API of one store ({@code /api/v1/query_range}, {@code /api/v1/query}),
 * which Prometheus, VictoriaMetrics, Mimir and Thanos serve alike. A failure names the store by
 * its address without credentials (the settings refuse them in the URL; the authorization header
 * is never part of a message) and keeps what the store said.
 *
 * @param base the query API's base, without a trailing slash
 * @param authorization the {@code Authorization} header, or null; a secret
 * @param headers the extra headers of every query (a tenant's {@code X-Scope-OrgID}); values are secrets
 */
record QueryApi(HttpClient client, String base, String authorization, Map<String, String> headers,
        Duration timeout) {

    QueryApi {
        headers = Collections.unmodifiableMap(new TreeMap<>(headers));
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The longest error text of a store quoted in an answer. */
    private static final int MAX_ERROR_CHARS = 300;

    /** One series of an answer: its labels (without {@code __name__}), times in epoch ms and values. */
    record Result(Map<String, String> labels, long[] times, double[] values) {
    }

    static QueryApi of(PrometheusHistorySettings settings) {
        String authorization = null;
        if (settings.bearerToken() != null) {
            authorization = "Bearer " + settings.bearerToken();
        } else if (settings.user() != null) {
            authorization = "Basic " + Base64.getEncoder().encodeToString(
                    (settings.user() + ":" + settings.password()).getBytes(StandardCharsets.UTF_8));
        }
        String base = settings.url().strip();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(settings.requestTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        return new QueryApi(client, base, authorization, settings.headers(), settings.requestTimeout());
    }

    /** {@code query} evaluated at {@code start, start + step, …, end}. */
    List<Result> range(String what, String query, Instant start, Instant end, Duration step)
            throws HistoryReadException {
        return get(what, "/api/v1/query_range", Map.of("query", query, "start", seconds(start), "end", seconds(end),
                "step", seconds(step.toMillis())));
    }

    /** {@code query} evaluated at {@code time}. */
    List<Result> instant(String what, String query, Instant time) throws HistoryReadException {
        return get(what, "/api/v1/query", Map.of("query", query, "time", seconds(time)));
    }

    private List<Result> get(String what, String path, Map<String, String> parameters) throws HistoryReadException {
        var form = new StringBuilder();
        new TreeMap<>(parameters).forEach((name, value) -> form.append(form.isEmpty() ? "" : "&").append(name)
                .append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        // POST keeps long PromQL out of URLs and access logs; every store of the API takes a form body.
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(form.toString()));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        headers.forEach(request::header);
        HttpResponse<byte[]> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw failure(what, "no answer within " + timeout, e);
        } catch (IOException e) {
            throw failure(what, "cannot reach the store (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(what, "interrupted", e);
        }
        return parse(what, response);
    }

    private List<Result> parse(String what, HttpResponse<byte[]> response) throws HistoryReadException {
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (JacksonException e) {
            throw failure(what, "HTTP " + response.statusCode() + ", not a query API answer", e);
        }
        if (response.statusCode() != 200 || !"success".equals(body.path("status").asString(""))) {
            String error = body.path("error").asString("");
            if (error.length() > MAX_ERROR_CHARS) {
                error = error.substring(0, MAX_ERROR_CHARS) + "…";
            }
            throw failure(what, "HTTP " + response.statusCode() + (error.isEmpty() ? "" : ": " + error), null);
        }
        var results = new ArrayList<Result>();
        for (JsonNode series : body.path("data").path("result")) {
            var labels = new TreeMap<String, String>();
            series.path("metric").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
            labels.remove("__name__");
            List<JsonNode> points = new ArrayList<>();
            if (series.has("values")) {
                series.get("values").forEach(points::add);
            } else if (series.has("value")) {
                points.add(series.get("value"));
            }
            var times = new long[points.size()];
            var values = new double[points.size()];
            int size = 0;
            for (JsonNode point : points) {
                double value = Double.parseDouble(point.get(1).asString());
                if (Double.isNaN(value) || Double.isInfinite(value)) {
                    continue;
                }
                times[size] = Math.round(point.get(0).asDouble() * 1000);
                values[size++] = value;
            }
            results.add(new Result(Map.copyOf(labels), java.util.Arrays.copyOf(times, size),
                    java.util.Arrays.copyOf(values, size)));
        }
        return results;
    }

    private HistoryReadException failure(String what, String why, Throwable cause) {
        return new HistoryReadException("reading " + what + " from " + base + " failed: " + why, cause);
    }

    private static String seconds(Instant time) {
        return seconds(time.toEpochMilli());
    }

    private static String seconds(long millis) {
        return java.math.BigDecimal.valueOf(millis, 3).toPlainString();
    }

    /** Never shows the authorization or header values. */
    @Override
    public String toString() {
        return "QueryApi[" + base + "]";
    }
}
