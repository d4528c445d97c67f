package io.pgharvest.sink.remotewrite;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A receiver whose every answer has a huge body, generated on the fly and never held (one 64 KB
 * chunk written again and again): it counts the bytes it managed to write before the client went
 * away, which is what the client read or let its socket buffer.
 */
final class HugeAnswerReceiver implements AutoCloseable {

    static final String OPENING = "receiver says: out of order ";

    private final HttpServer server;
    private final long bodyBytes;
    private volatile int status = 200;
    private volatile Map<String, String> headers = Map.of();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();

    HugeAnswerReceiver(long bodyBytes) throws IOException {
        this.bodyBytes = bodyBytes;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::answer);
        server.start();
    }

    /** Answers from now on with {@code status} and these headers, each time with the huge body. */
    void answerWith(int status, Map<String, String> headers) {
        this.status = status;
        this.headers = Map.copyOf(headers);
        written.set(0);
        answered.set(0);
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write";
    }

    /** Body bytes written since {@link #answerWith}, over every request. */
    long written() {
        return written.get();
    }

    /** Answers that ended (the whole body written, or the client gone) since {@link #answerWith}. */
    long answered() {
        return answered.get();
    }

    private void answer(HttpExchange exchange) {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            exchange.sendResponseHeaders(status, 0); // chunked: the length is never announced
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'x');
            byte[] opening = OPENING.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(opening, 0, chunk, 0, opening.length);
            OutputStream out = exchange.getResponseBody();
            for (long sent = 0; sent < bodyBytes; sent += chunk.length) {
                out.write(chunk);
                written.addAndGet(chunk.length);
                Arrays.fill(chunk, 0, opening.length, (byte) 'x');
            }
        } catch (IOException clientGone) {
            // the client stopped reading and closed the connection: what it should do
        } finally {
            answered.incrementAndGet();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
