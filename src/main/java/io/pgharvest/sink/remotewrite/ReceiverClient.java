package io.pgharvest.sink.remotewrite;

import io.pgharvest.support.BoundedBodies;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * POSTs snappy-compressed remote-write requests with the JDK's HTTP client (HTTP/1.1, virtual
 * threads). Redirects are never followed: the credentials and tenant headers must not go to a
 * host the configuration did not name.
 */
final class ReceiverClient implements AutoCloseable {

    /** Longest {@code Retry-After} honoured; a receiver asking for more is retried after this. */
    static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(10);
    private static final int BODY_EXCERPT = 300;
    /**
     * Bytes of an answer's body read, whatever the status: enough for the excerpt (a success's body
     * is not used); past it the body is abandoned unread ({@link BoundedBodies}).
     */
    static final int BODY_READ = 4096;

    /** A receiver's answer: the status, a short excerpt of the body, and Retry-After if given. */
    record Answer(int status, String body, Optional<Duration> retryAfter) {

        boolean success() {
            return status >= 200 && status < 300;
        }
    }

    private final ReceiverEndpoint endpoint;
    private final Clock clock;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http;

    ReceiverClient(ReceiverEndpoint endpoint, Clock clock) {
        this.endpoint = endpoint;
        this.clock = clock;
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(endpoint.connectTimeout())
                .executor(executor);
        if (endpoint.tls() != null) {
            builder.sslContext(endpoint.tls());
        }
        this.http = builder.build();
    }

    /** Sends one compressed request; I/O errors and timeouts are thrown as they come. */
    Answer post(byte[] compressed) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint.url())
                .timeout(endpoint.requestTimeout())
                .header("Content-Encoding", "snappy")
                .header("Content-Type", "application/x-protobuf")
                .header("X-Prometheus-Remote-Write-Version", "0.1.0")
                .header("User-Agent", "pgharvest")
                .POST(HttpRequest.BodyPublishers.ofByteArray(compressed));
        if (endpoint.authorization() != null) {
            request.header("Authorization", endpoint.authorization());
        }
        endpoint.headers().forEach(request::header);
        // The body too is bounded in time: the request timeout alone runs only until the headers came.
        HttpResponse<BoundedBodies.Body> response = BoundedBodies.send(http, request.build(), BODY_READ, BODY_READ,
                endpoint.connectTimeout().plus(endpoint.requestTimeout()));
        return new Answer(response.statusCode(), excerpt(response.body().text()),
                response.headers().firstValue("Retry-After").flatMap(this::retryAfter));
    }

    /** Retry-After as delay-seconds or an HTTP date; capped at {@link #MAX_RETRY_AFTER}. */
    Optional<Duration> retryAfter(String value) {
        Duration delay;
        try {
            delay = Duration.ofSeconds(Long.parseLong(value.strip()));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value.strip(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                delay = Duration.between(clock.instant(), at);
            } catch (DateTimeParseException notDate) {
                return Optional.empty();
            }
        }
        if (delay.isNegative()) {
            return Optional.of(Duration.ZERO);
        }
        return Optional.of(delay.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : delay);
    }

    /** The start of a receiver's error text, on one line, for logs and health. */
    private static String excerpt(String body) {
        if (body == null) {
            return "";
        }
        String line = body.strip().replaceAll("\\s+", " ");
        return line.length() <= BODY_EXCERPT ? line : line.substring(0, BODY_EXCERPT) + "…";
    }

    @Override
    public void close() {
        http.shutdownNow();
        executor.close();
    }
}
