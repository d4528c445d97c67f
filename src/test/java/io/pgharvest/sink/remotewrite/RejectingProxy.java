package io.pgharvest.sink.remotewrite;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A remote-write proxy for tests: forwards every request to a real receiver, except the
 * {@code rejectNth} request that carries samples, which it answers with 400 (as a receiver answers a
 * sample it refuses) after recording what it held.
 */
final class RejectingProxy implements AutoCloseable {

    private final HttpServer server;
    private final HttpClient client = HttpClient.newHttpClient();
    private final String target;
    private final int rejectNth;
    private final AtomicInteger withSamples = new AtomicInteger();
    private final List<WriteRequests.DecodedSeries> rejected = new CopyOnWriteArrayList<>();

    RejectingProxy(String target, int rejectNth) throws IOException {
        this.target = target;
        this.rejectNth = rejectNth;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::forward);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write";
    }

    /** The series of the request answered with 400 (empty until then). */
    List<WriteRequests.DecodedSeries> rejected() {
        return List.copyOf(rejected);
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            List<WriteRequests.DecodedSeries> series = WriteRequests.decode(body);
            if (!series.isEmpty() && withSamples.incrementAndGet() == rejectNth) {
                rejected.addAll(series);
                byte[] answer = "out of bounds: sample refused by test proxy".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(400, answer.length);
                exchange.getResponseBody().write(answer);
                return;
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            for (String header : List.of("Content-Encoding", "Content-Type", "X-Prometheus-Remote-Write-Version")) {
                request.header(header, exchange.getRequestHeaders().getFirst(header));
            }
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1 : response.body().length);
            exchange.getResponseBody().write(response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        client.close();
    }
}
