package io.pgharvest.sink.prometheus;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scrape endpoint: the JDK's HTTP server (no servlet container, no second web stack) on its
 * own port, one virtual thread per request. The format follows the scraper's Accept header
 * through Prometheus client_java's writers (text 0.0.4 by default, OpenMetrics or protobuf when
 * asked); gzip when accepted. Only GET and HEAD on exactly the configured path are served.
 */
final class ScrapeEndpoint implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ScrapeEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;
    private final ExpositionFormats formats = ExpositionFormats.init();
    private final String path;
    private final Supplier<MetricSnapshots> snapshots;

    /**
     * Binds and starts serving.
     *
     * @throws IllegalStateException naming {@code property} when the port cannot be bound
     */
    ScrapeEndpoint(String property, String address, int port, String path, Supplier<MetricSnapshots> snapshots) {
        this.path = path;
        this.snapshots = snapshots;
        try {
            server = HttpServer.create(address == null || address.isBlank() ? new InetSocketAddress(port)
                    : new InetSocketAddress(InetAddress.getByName(address), port), 0);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(property + ".address: '" + address + "' is not a local address", e);
        } catch (BindException e) {
            throw new IllegalStateException(property + ".port: cannot listen on port " + port
                    + (address == null ? "" : " of " + address) + " (" + e.getMessage()
                    + "); choose another port or address for the Prometheus endpoint", e);
        } catch (IOException e) {
            throw new IllegalStateException(property + ".port: cannot start the Prometheus endpoint on port " + port, e);
        }
        executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::serve);
        server.start();
    }

    /** The address bound, e.g. {@code 127.0.0.1}, or {@code 0.0.0.0} for all interfaces. */
    String address() {
        return server.getAddress().getAddress().getHostAddress();
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals(path)) {
                reply(exchange, 404, "Not found; metrics are at " + path + "\n");
                return;
            }
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                reply(exchange, 405, "Method not allowed\n");
                return;
            }
            ExpositionFormatWriter writer = formats.findWriter(exchange.getRequestHeaders().getFirst("Accept"));
            var body = new ByteArrayOutputStream(16 * 1024);
            boolean gzip = accepts(exchange.getRequestHeaders().getFirst("Accept-Encoding"), "gzip");
            try (OutputStream out = gzip ? new GZIPOutputStream(body) : body) {
                writer.write(out, snapshots.get());
            }
            exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
            if (gzip) {
                exchange.getResponseHeaders().set("Content-Encoding", "gzip");
            }
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
            } else {
                exchange.sendResponseHeaders(200, body.size());
                body.writeTo(exchange.getResponseBody());
            }
        } catch (RuntimeException e) {
            log.error("Prometheus endpoint failed to render metrics", e);
            reply(exchange, 500, "Rendering metrics failed\n");
        }
    }

    private static boolean accepts(String header, String encoding) {
        if (header == null) {
            return false;
        }
        for (String part : header.split(",")) {
            if (part.strip().split(";")[0].equalsIgnoreCase(encoding)) {
                return true;
            }
        }
        return false;
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
