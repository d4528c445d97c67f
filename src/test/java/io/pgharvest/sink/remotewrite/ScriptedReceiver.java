package io.pgharvest.sink.remotewrite;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;

/**
 * A receiver that answers from a script (status and headers per request, then 204) and records
 * every request: for the protocol details a real receiver does not show (headers, redirects,
 * Retry-After).
 */
final class ScriptedReceiver implements AutoCloseable {

    record Answer(int status, Map<String, String> headers) {
    }

    /** @param nanoTime System.nanoTime() at arrival */
    record Received(Headers headers, byte[] body, long nanoTime) {
    }

    private final HttpServer server;
    private final String scheme;
    private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();

    ScriptedReceiver() throws IOException {
        this(null);
    }

    /** @param tls serve https with this context; null for http */
    ScriptedReceiver(SSLContext tls) throws IOException {
        var address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (tls == null) {
            server = HttpServer.create(address, 0);
            scheme = "http";
        } else {
            HttpsServer https = HttpsServer.create(address, 0);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
            scheme = "https";
        }
        server.createContext("/", this::answer);
        server.start();
    }

    void then(int status, Map<String, String> headers) {
        script.add(new Answer(status, headers));
    }

    String url() {
        return scheme + "://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write";
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            received.add(new Received(exchange.getRequestHeaders(), exchange.getRequestBody().readAllBytes(),
                    System.nanoTime()));
            Answer answer = script.poll();
            if (answer == null) {
                exchange.sendResponseHeaders(204, -1);
                return;
            }
            answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            byte[] body = ("scripted " + answer.status()).getBytes();
            exchange.sendResponseHeaders(answer.status(), body.length);
            exchange.getResponseBody().write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
