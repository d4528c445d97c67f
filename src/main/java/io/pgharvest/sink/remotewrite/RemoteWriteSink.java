package io.pgharvest.sink.remotewrite;

import io.airlift.compress.snappy.SnappyCompressor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.SeriesMapping;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.SinkRetryAfterException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends every sample of every measurement, stamped with its collection time, to a receiver of the
 * Prometheus remote-write 1.0 protocol (Prometheus, VictoriaMetrics, Mimir, Thanos, Cortex): one
 * batch of the sink's queue is one request, protobuf ({@link WriteRequestEncoder}) compressed with
 * snappy's block format. Series names and labels are the scrape sink's ({@link SeriesMapping}).
 *
 * <p>What an answer means for the batch:
 * <ul>
 *   <li>2xx: delivered;
 *   <li>429 and 5xx: not delivered, retried with back-off (the queue keeps and spills it), no
 *       sooner than the receiver's {@code Retry-After};
 *   <li>3xx, 401, 403, 404, 405, 407: the endpoint or the credentials are wrong, not the data:
 *       retried like a receiver that is down, so nothing is lost while the configuration is fixed
 *       (redirects are never followed: credentials must not reach another host);
 *   <li>any other 4xx (400 for samples the receiver refuses, 413 for a request too large): no retry
 *       can succeed, so the batch is quarantined ({@link SinkRejectedException#quarantined}) and the
 *       next one goes. A receiver may have stored part of such a batch (Prometheus keeps the samples it
 *       accepted and answers 400 for the others).
 * </ul>
 * The probe sends an empty request, so a recovered receiver is written to within about a second.
 */
public final class RemoteWriteSink implements Sink {

    private static final Logger log = LoggerFactory.getLogger(RemoteWriteSink.class);
    /** An empty WriteRequest, snappy-compressed: the uncompressed length 0 as a varint. */
    private static final byte[] EMPTY_REQUEST = {0};

    private final String name;
    private final ReceiverEndpoint endpoint;
    private final ReceiverClient client;
    private final WriteRequestEncoder encoder;
    private final SnappyCompressor snappy = new SnappyCompressor();
    private final Clock clock;
    private final AtomicLong samplesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    /** No request before this instant (the receiver's Retry-After); null when none is pending. */
    private volatile Instant notBefore;

    RemoteWriteSink(String name, ReceiverEndpoint endpoint, SeriesMapping mapping, Clock clock, MeterRegistry meters) {
        this.name = name;
        this.endpoint = endpoint;
        this.client = new ReceiverClient(endpoint, clock);
        this.encoder = new WriteRequestEncoder(mapping);
        this.clock = clock;
        Tags tags = Tags.of("sink", name);
        FunctionCounter.builder("pgharvest.sink.remotewrite.samples", samplesSent, AtomicLong::get)
                .description("Samples the remote-write receiver accepted").tags(tags).register(meters);
        FunctionCounter.builder("pgharvest.sink.remotewrite.bytes", bytesSent, AtomicLong::get)
                .description("Compressed request bytes the remote-write receiver accepted").baseUnit("bytes")
                .tags(tags).register(meters);
        log.info("Prometheus remote-write sink {} sends to {}", name, endpoint.display());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void write(List<Measurement> batch) throws Exception {
        WriteRequestEncoder.Encoded request = encoder.encode(batch);
        if (request.samples() == 0) {
            return; // nothing numeric: a request without series would only cost a round trip
        }
        byte[] compressed = compress(request.bytes());
        ReceiverClient.Answer answer = send(compressed);
        if (answer.success()) {
            samplesSent.addAndGet(request.samples());
            bytesSent.addAndGet(compressed.length);
            return;
        }
        String message = "receiver " + endpoint.display() + " answered " + answer.status()
                + (answer.body().isEmpty() ? "" : ": " + answer.body());
        if (quarantines(answer.status())) {
            throw SinkRejectedException.quarantined(message + " (" + request.samples() + " samples of "
                    + request.series() + " series)", batch, null);
        }
        throw failure(answer, message);
    }

    /** Sends an empty request: any answer but an error that a write would also get means "ready". */
    @Override
    public boolean probe() throws Exception {
        ReceiverClient.Answer answer = send(EMPTY_REQUEST);
        if (answer.success() || quarantines(answer.status())) {
            return true;
        }
        throw failure(answer, "receiver " + endpoint.display() + " answered " + answer.status() + " to a probe");
    }

    /** The samples and compressed bytes the receiver accepted since start. */
    long samplesSent() {
        return samplesSent.get();
    }

    long bytesSent() {
        return bytesSent.get();
    }

    private ReceiverClient.Answer send(byte[] compressed) throws IOException, InterruptedException,
            SinkRetryAfterException {
        Instant wait = notBefore;
        if (wait != null && clock.instant().isBefore(wait)) {
            throw new SinkRetryAfterException("receiver " + endpoint.display() + " asked to wait until " + wait,
                    Duration.between(clock.instant(), wait));
        }
        notBefore = null;
        return client.post(compressed);
    }

    private Exception failure(ReceiverClient.Answer answer, String message) {
        if (answer.status() >= 300 && answer.status() < 400) {
            return new IOException(message + "; redirects are not followed (credentials must not go to another "
                    + "host): set url to the final write endpoint");
        }
        if (answer.retryAfter().isPresent() && (answer.status() == 429 || answer.status() >= 500)) {
            Duration delay = answer.retryAfter().get();
            notBefore = clock.instant().plus(delay);
            return new SinkRetryAfterException(message + "; retry after " + delay.toSeconds() + "s", delay);
        }
        return new IOException(message);
    }

    /** A 4xx that no retry can fix: the data, not the endpoint, credentials or load, is refused. */
    static boolean quarantines(int status) {
        return status >= 400 && status < 500
                && status != 429 && status != 401 && status != 403 && status != 404 && status != 405 && status != 407;
    }

    private byte[] compress(byte[] raw) {
        byte[] out = new byte[snappy.maxCompressedLength(raw.length)];
        int length = snappy.compress(raw, 0, raw.length, out, 0, out.length);
        return Arrays.copyOf(out, length);
    }

    @Override
    public void close() {
        client.close();
    }
}
