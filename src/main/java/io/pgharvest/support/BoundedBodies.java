package io.pgharvest.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How every HTTP answer pgharvest reads is read (remote-write receivers, Patroni's REST API, etcd):
 * at most {@code limit} bytes of the body are kept, and at the limit the body is abandoned (the
 * subscription is cancelled, so the JDK client closes that connection and reads nothing more). A
 * peer's answer then costs at most the limit, whatever it sends: with
 * {@code BodyHandlers.ofString()} a receiver's 400 with a 1 GiB body ended the process 7 s after
 * the first write, since the whole body was kept before it was cut to an excerpt.
 *
 * <p>{@link #send} also bounds the whole exchange, body included, by a deadline: the JDK's
 * {@link HttpRequest#timeout} stops at the response headers, and a peer that trickles its body
 * would hold the caller for ever.
 */
public final class BoundedBodies {

    private BoundedBodies() {
    }

    /**
     * The start of a body: its first bytes (at most the limit), and whether more followed.
     *
     * @param cut true when the peer sent more than the limit (the rest was never read)
     */
    public record Body(byte[] bytes, boolean cut) {

        /** The kept bytes as UTF-8 (a character cut in half at the limit is replaced). */
        public String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /**
     * A handler that keeps at most {@code successLimit} bytes of a 2xx answer's body and at most
     * {@code errorLimit} of any other's (an error's body is only ever an excerpt).
     */
    public static HttpResponse.BodyHandler<Body> upTo(int successLimit, int errorLimit) {
        if (successLimit < 0 || errorLimit < 0) {
            throw new IllegalArgumentException("a body limit cannot be negative, got " + successLimit + " and "
                    + errorLimit);
        }
        return info -> new BoundedSubscriber(info.statusCode() / 100 == 2 ? successLimit : errorLimit);
    }

    /**
     * Sends {@code request} and reads at most the limits' bytes of its answer ({@link #upTo}), all
     * within {@code deadline} (connect, headers and body); past it the exchange is cancelled and an
     * {@link HttpTimeoutException} thrown.
     */
    public static HttpResponse<Body> send(HttpClient http, HttpRequest request, int successLimit, int errorLimit,
            Duration deadline) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<Body>> exchange = http.sendAsync(request, upTo(successLimit, errorLimit));
        try {
            return exchange.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new HttpTimeoutException("no whole answer from " + request.uri().getAuthority() + " within "
                    + deadline.toMillis() + " ms");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage(),
                    cause);
        }
    }

    /** Copies buffers until the limit, then cancels: nothing past the limit is kept or asked for. */
    private static final class BoundedSubscriber implements HttpResponse.BodySubscriber<Body> {

        private final int limit;
        private final ByteArrayOutputStream kept;
        private final CompletableFuture<Body> body = new CompletableFuture<>();
        private Flow.Subscription subscription;

        BoundedSubscriber(int limit) {
            this.limit = limit;
            this.kept = new ByteArrayOutputStream(Math.min(limit, 1024));
        }

        @Override
        public CompletionStage<Body> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (body.isDone()) {
                return;
            }
            for (ByteBuffer buffer : buffers) {
                int room = limit - kept.size();
                int take = Math.min(room, buffer.remaining());
                if (take > 0) {
                    byte[] part = new byte[take];
                    buffer.get(part);
                    kept.writeBytes(part);
                }
                if (buffer.hasRemaining()) {
                    // Past the limit: stop reading; the client closes the connection.
                    body.complete(new Body(kept.toByteArray(), true));
                    subscription.cancel();
                    return;
                }
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable failure) {
            body.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            body.complete(new Body(kept.toByteArray(), false));
        }
    }
}
