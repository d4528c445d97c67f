package io.pgharvest.support.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A self-arming socket's bound starts where the server's answer to the StartupMessage starts,
 * whatever came before on the stream, and never on a stream that turned into TLS or carried a
 * cancel request; bytes pass unchanged however pgjdbc splits its writes.
 */
class StartupWatchTest {

    private static final byte[] SSL_REQUEST = untyped(8, 80877103);
    private static final byte[] GSS_REQUEST = untyped(8, 80877104);
    private static final byte[] CANCEL = untyped(16, 80877102);
    /** A StartupMessage's header (protocol 3.0) and a few bytes of its parameters. */
    private static final byte[] STARTUP = concat(untyped(23, 196608), "user\0me\0\0".getBytes());
    /** A TLS ClientHello's record header and the start of the handshake. */
    private static final byte[] CLIENT_HELLO = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03};

    @Test
    void theStartupArmsOnceAfterRefusedEncryptionRequests() throws Exception {
        assertThat(armsAfter(STARTUP)).isEqualTo(1);
        assertThat(armsAfter(SSL_REQUEST, STARTUP)).isEqualTo(1);
        assertThat(armsAfter(GSS_REQUEST, SSL_REQUEST, STARTUP, STARTUP)).isEqualTo(1);
    }

    @Test
    void aStreamThatTurnsIntoTlsOrCancelsNeverArms() throws Exception {
        assertThat(armsAfter(SSL_REQUEST, CLIENT_HELLO, STARTUP)).isZero();
        assertThat(armsAfter(CLIENT_HELLO)).isZero(); // direct TLS
        assertThat(armsAfter(CANCEL)).isZero();
    }

    @Test
    void writesSplitByteByBytePassUnchangedAndArm() throws Exception {
        var sink = new ByteArrayOutputStream();
        var arms = new AtomicInteger();
        byte[] all = concat(SSL_REQUEST, STARTUP);
        try (var watch = new StartupWatch(sink, arms::incrementAndGet)) {
            for (byte b : all) {
                watch.write(b);
            }
            assertThat(arms).hasValue(1);
        }
        assertThat(sink.toByteArray()).isEqualTo(all);
    }

    private static int armsAfter(byte[]... writes) throws Exception {
        var sink = new ByteArrayOutputStream();
        var arms = new AtomicInteger();
        var watch = new StartupWatch(sink, arms::incrementAndGet);
        var expected = new ByteArrayOutputStream();
        for (byte[] w : writes) {
            watch.write(w, 0, w.length);
            expected.write(w);
        }
        assertThat(sink.toByteArray()).isEqualTo(expected.toByteArray());
        return arms.get();
    }

    private static byte[] untyped(int length, int code) {
        return ByteBuffer.allocate(8).putInt(length).putInt(code).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
    }
}
