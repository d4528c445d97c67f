package io.pgharvest.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Talks to a running pgharvest over real HTTP; the client's own threads are virtual. */
public final class ApiClient {

    public static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private final URI base;
    private final String token;

    public ApiClient(int port, String token) {
        this.base = URI.create("http://localhost:" + port);
        this.token = token;
    }

    public ApiClient withToken(String otherToken) {
        return new ApiClient(base.getPort(), otherToken);
    }

    /** An HTTP answer with its body parsed as JSON when it is JSON. */
    public record Response(int status, java.net.http.HttpHeaders headers, String body) {

        public JsonNode json() {
            return JSON.readTree(body);
        }

        public long index() {
            return Long.parseLong(headers.firstValue(BlockingQuery.INDEX_HEADER).orElseThrow());
        }

        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        /** The {@code field} of each entry of a problem's {@code errors}. */
        public List<String> errorFields() {
            return json().get("errors").valueStream().map(e -> e.get("field").asString()).toList();
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    public Response get(String path) {
        return send(request(path).GET());
    }

    public Response delete(String path) {
        return send(request(path).DELETE());
    }

    public Response post(String path, Object body) {
        return send(request(path).POST(json(body)));
    }

    public Response put(String path, Object body) {
        return send(request(path).PUT(json(body)));
    }

    public Response send(String method, String path, String rawBody) {
        return send(request(path).method(method, rawBody == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(rawBody)));
    }

    /** A request with a body of another media type than JSON, e.g. application/yaml. */
    public Response send(String method, String path, String contentType, String rawBody) {
        HttpRequest.Builder builder = request(path).setHeader("Content-Type", contentType);
        return send(builder.method(method, HttpRequest.BodyPublishers.ofString(rawBody)));
    }

    public CompletableFuture<Response> getAsync(String path) {
        return HTTP.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> new Response(r.statusCode(), r.headers(), r.body()));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofMinutes(2));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    private static HttpRequest.BodyPublisher json(Object body) {
        String text = body instanceof String s ? s : JSON.writeValueAsString(body);
        return HttpRequest.BodyPublishers.ofString(text);
    }

    private static Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
