package io.pgharvest.history.prometheus;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback HTTP proxy in front of a real store's query API: it forwards each request's method,
 * path, body and content type to the store and its answer back, and records the headers each
 * request arrived with, so a test sees what the reader sent (a tenant header the store itself
 * ignores) while the data still comes from the store.
 */
final class RecordingProxy implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final HttpServer server;
    private final String target;
    private final List<Map<String, List<String>>> received = new CopyOnWriteArrayList<>();

    private RecordingProxy(String target) throws IOException {
        this.target = target;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::forward);
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    static RecordingProxy to(String target) {
        try {
            return new RecordingProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The headers (lower-case names) of every request so far, in arrival order. */
    List<Map<String, List<String>>> received() {
        return List.copyOf(received);
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            var headers = new java.util.TreeMap<String, List<String>>();
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(java.util.Locale.ROOT),
                    List.copyOf(values)));
            received.add(headers);
            byte[] body = exchange.getRequestBody().readAllBytes();
            var request = HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI()))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (type != null) {
                request.header("Content-Type", type);
            }
            HttpResponse<byte[]> answer = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            answer.headers().firstValue("Content-Type")
                    .ifPresent(value -> exchange.getResponseHeaders().set("Content-Type", value));
            exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
            exchange.getResponseBody().write(answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
