package io.pgharvest.sink.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.SinkRetryAfterException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A receiver that answers every request with a 256 MB body (streamed, never held by the test) gets
 * only a few KB of it read, on every status the sink tells apart, and the write's outcome is the one
 * a short body would give. Before the bound, {@code BodyHandlers.ofString()} read all of it into the
 * heap (a 400 with 1 GiB ended pgharvest 7 s after its first write).
 */
class ReceiverAnswerBoundTest {

    private static final long HUGE = 256L << 20;
    /** What the client may let through besides what it reads: loopback socket buffers and the server's own. */
    private static final long SOCKET_SLACK = 32L << 20;
    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

    private static HugeAnswerReceiver receiver;
    private static RemoteWriteSink sink;

    @BeforeAll
    static void start() throws IOException {
        receiver = new HugeAnswerReceiver(HUGE);
        sink = RemoteWriteSinkTest.sink(receiver.url());
    }

    @AfterAll
    static void stop() {
        sink.close();
        receiver.close();
    }

    @Test
    void aSuccessWithAHugeBodyIsASuccessAndTheBodyIsLeftUnread() throws Exception {
        receiver.answerWith(200, Map.of());
        sink.write(List.of(RemoteWriteSinkTest.measurement(T0, 1, 1)));
        assertThat(sink.samplesSent()).isPositive();
        assertLeftUnread();
    }

    @Test
    void a400WithAHugeBodyQuarantinesTheBatchWithAnExcerpt() {
        receiver.answerWith(400, Map.of());
        assertThatThrownBy(() -> sink.write(List.of(RemoteWriteSinkTest.measurement(T0, 2, 2))))
                .isInstanceOfSatisfying(SinkRejectedException.class, e -> {
                    assertThat(e.quarantined()).isTrue();
                    assertThat(e.getMessage()).contains("400").contains(HugeAnswerReceiver.OPENING.strip());
                    assertThat(e.getMessage().length()).isLessThan(1000);
                });
        assertLeftUnread();
    }

    @Test
    void a429WithAHugeBodyStillHonoursRetryAfter() throws Exception {
        receiver.answerWith(429, Map.of("Retry-After", "1"));
        try (var own = RemoteWriteSinkTest.sink(receiver.url())) {
            assertThatThrownBy(() -> own.write(List.of(RemoteWriteSinkTest.measurement(T0, 3, 3))))
                    .isInstanceOfSatisfying(SinkRetryAfterException.class,
                            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1)));
        }
        assertLeftUnread();
    }

    @Test
    void a503WithAHugeBodyIsAFailureToRetry() {
        receiver.answerWith(503, Map.of());
        assertThatThrownBy(() -> sink.write(List.of(RemoteWriteSinkTest.measurement(T0, 4, 4))))
                .isInstanceOf(IOException.class).isNotInstanceOf(SinkRejectedException.class)
                .hasMessageContaining("503").hasMessageContaining(HugeAnswerReceiver.OPENING.strip());
        assertLeftUnread();
    }

    /** The server stopped writing because the client closed the connection, long before the end. */
    private static void assertLeftUnread() {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> receiver.answered() >= 1);
        assertThat(receiver.written()).as("body bytes the receiver got to write of " + HUGE)
                .isLessThan(SOCKET_SLACK);
    }
}
