package io.pgharvest.alert.notify.dispatch;


import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An HTTP server on a free loopback port that records every POST it accepts; while
 * {@link #down(boolean)} it answers 503 and records nothing (a receiver that is down).
 */
public final class TestWebhook implements AutoCloseable {

    public static final JsonMapper JSON = JsonMapper.builder().build();

    /** One accepted request. */
    public record Received(String path, Map<String, List<String>> headers, byte[] body) {

        public JsonNode json() {
            return JSON.readTree(body);
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile boolean down;
    private volatile int refused;

    public TestWebhook() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            if (down) {
                refused++;
                exchange.sendResponseHeaders(503, -1);
            } else {
                received.add(new Received(exchange.getRequestURI().getPath(), Map.copyOf(exchange.getRequestHeaders()),
                        body));
                exchange.sendResponseHeaders(200, -1);
            }
            exchange.close();
        });
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public void down(boolean isDown) {
        down = isDown;
    }

    /** Requests answered 503 while down. */
    public int refused() {
        return refused;
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
