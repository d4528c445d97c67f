package io.pgharvest.kind.patroni;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.DcsAddress;
import io.pgharvest.support.BoundedBodies;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.JsonNode;

/**
 * Reads keys from etcd's v3 API through its JSON gateway ({@code POST /v3/kv/range}), which every
 * etcd 3.4+ server answers on its client port, and which Patroni's own {@code etcd3} DCS uses too.
 *
 * <p>Why not jetcd: a full gRPC client (grpc-java, Netty, Vert.x, their event-loop threads) for
 * one range read per poll is much weight, and its threads would not be virtual; the JDK's HTTP
 * client and the Jackson the service already has do the job.
 *
 * <p>Endpoints are tried in order until one answers. With an etcd user the reader first gets an
 * auth token ({@code /v3/auth/authenticate}); the password travels only to the etcd endpoints of
 * the address and never appears in an error.
 */
final class EtcdReader {

    /** A key and its value, both decoded as UTF-8. */
    record KeyValue(String key, String value) {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /**
     * Largest answer read: a Patroni cluster's keys (members, leader, config, history, status) are a
     * few KB per member, so 4 MiB is hundreds of members; a longer answer is refused unread.
     */
    static final int MAX_ANSWER_BYTES = 4 << 20;
    /** Bytes of an error answer read, for its message. */
    static final int ERROR_BYTES = 4096;

    private final HttpClient http;
    private final Duration timeout;

    EtcdReader(HttpClient http, Duration timeout) {
        this.http = http;
        this.timeout = timeout;
    }

    /** Every key starting with {@code prefix}, in key order. */
    List<KeyValue> readPrefix(DcsAddress address, String prefix) throws IOException {
        IOException last = null;
        for (ConnectionString.HostPort endpoint : address.endpoints()) {
            try {
                return readPrefix(URI.create("http://" + endpoint), address, prefix);
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IOException("no etcd endpoint answered (" + address.endpoints().size() + " tried); last: "
                + (last == null ? "none" : last.getMessage()), last);
    }

    private List<KeyValue> readPrefix(URI base, DcsAddress address, String prefix) throws IOException {
        var headers = new LinkedHashMap<String, String>();
        if (address.etcdUser().isPresent()) {
            headers.put("Authorization", authenticate(base, address));
        }
        byte[] key = prefix.getBytes(StandardCharsets.UTF_8);
        var body = Map.of("key", encode(key), "range_end", encode(rangeEnd(key)));
        JsonNode answer = post(base, "/v3/kv/range", JSON.writeValueAsString(body), headers);
        var found = new ArrayList<KeyValue>();
        for (JsonNode kv : answer.path("kvs")) {
            found.add(new KeyValue(decode(kv.path("key").asString("")), decode(kv.path("value").asString(""))));
        }
        return found;
    }

    private String authenticate(URI base, DcsAddress address) throws IOException {
        var body = Map.of("name", address.etcdUser().orElseThrow(), "password", address.etcdPassword().orElse(""));
        JsonNode answer = post(base, "/v3/auth/authenticate", JSON.writeValueAsString(body), Map.of());
        String token = answer.path("token").asString("");
        if (token.isEmpty()) {
            throw new IOException("etcd at " + base.getAuthority() + " gave no auth token for user "
                    + address.etcdUser().get());
        }
        return token;
    }

    private JsonNode post(URI base, String path, String json, Map<String, String> headers) throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        headers.forEach(request::header);
        HttpResponse<BoundedBodies.Body> response;
        try {
            response = BoundedBodies.send(http, request.build(), MAX_ANSWER_BYTES, ERROR_BYTES, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading etcd at " + base.getAuthority(), e);
        } catch (IOException e) {
            throw new IOException("etcd at " + base.getAuthority() + ": " + describe(e), e);
        }
        if (response.statusCode() != 200) {
            // The gateway answers errors as {"error": "...", "message": "..."}; never echo the request.
            throw new IOException("etcd at " + base.getAuthority() + " answered HTTP " + response.statusCode() + " to "
                    + path + ": " + errorMessage(response.body()));
        }
        if (response.body().cut()) {
            throw new IOException("etcd at " + base.getAuthority() + " answered " + path + " with more than "
                    + MAX_ANSWER_BYTES + " bytes; refused unread");
        }
        try {
            return JSON.readTree(response.body().bytes());
        } catch (JacksonException e) {
            throw new IOException("etcd at " + base.getAuthority() + " answered " + path + " with something that is"
                    + " not JSON", e);
        }
    }

    private static String errorMessage(BoundedBodies.Body body) {
        if (body.cut()) {
            return "(no message: the answer is longer than " + ERROR_BYTES + " bytes)";
        }
        try {
            JsonNode node = JSON.readTree(body.bytes());
            String message = node.path("message").asString(node.path("error").asString(""));
            return message.isEmpty() ? "(no message)" : message;
        } catch (JacksonException e) {
            return "(no message)";
        }
    }

    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** etcd's prefix range: the key with its last byte incremented (dropping trailing 0xff bytes). */
    static byte[] rangeEnd(byte[] prefix) {
        byte[] end = Arrays.copyOf(prefix, prefix.length);
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return new byte[] {0}; // every key: etcd's "\0" range end
    }

    private static String encode(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }
}
