package io.pgharvest.support.wire;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The output of a socket that arms its own {@link ResultBytesBound} (sessions of pgharvest's own
 * databases, {@link OwnSessions}): it watches the first messages pgjdbc writes and runs
 * {@code onStartup} when the StartupMessage goes out on this stream. The server's answer to it is
 * the first plain protocol read on this socket, so the bound starts at a message boundary, as a
 * session opener's {@link ResultBytesBound#follow} after the login would, only earlier: a pool
 * connects on threads of its own, where nobody can arm a bound after the login.
 *
 * <p>What may come before: an SSLRequest or a GSSENCRequest (8 bytes each), whose one-byte answer
 * pgjdbc reads before it writes on; after a yes, the TLS or GSS bytes that follow on this stream
 * start with no StartupMessage's header (a TLS record's length is far above 64 KB), so watching
 * stops and this socket's bound stays a pass-through (the TLS socket above gets a watch of its own).
 * A CancelRequest stops the watch too. Bytes pass unchanged; the watch reads at most eight at a time.
 */
final class StartupWatch extends OutputStream {

    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_ENC_REQUEST = 80877104;
    /** Protocol 3.x, the only major version a StartupMessage carries. */
    private static final int PROTOCOL_MAJOR = 3;
    private static final int HEADER = 8;
    private static final int LONGEST_STARTUP = 65_536;

    private final OutputStream out;
    private final Runnable onStartup;
    private final byte[] header = new byte[HEADER];
    private int have;
    private boolean watching = true;

    StartupWatch(OutputStream out, Runnable onStartup) {
        this.out = out;
        this.onStartup = onStartup;
    }

    @Override
    public void write(int b) throws IOException {
        if (watching) {
            see(new byte[] {(byte) b}, 0, 1);
        }
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (watching) {
            see(b, off, len);
        }
        out.write(b, off, len);
    }

    private void see(byte[] b, int off, int len) {
        int p = off;
        int end = off + len;
        while (watching && p < end) {
            int take = Math.min(HEADER - have, end - p);
            System.arraycopy(b, p, header, have, take);
            have += take;
            p += take;
            if (have == HEADER) {
                have = 0;
                decide();
            }
        }
    }

    private void decide() {
        int length = intAt(0);
        int code = intAt(4);
        if (length == HEADER && (code == SSL_REQUEST || code == GSS_ENC_REQUEST)) {
            return; // answered by one byte; then another request, the startup, or encryption
        }
        watching = false;
        if (length > HEADER && length < LONGEST_STARTUP && code >>> 16 == PROTOCOL_MAJOR) {
            onStartup.run();
        }
    }

    private int intAt(int at) {
        return ((header[at] & 0xff) << 24) | ((header[at + 1] & 0xff) << 16) | ((header[at + 2] & 0xff) << 8)
                | (header[at + 3] & 0xff);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
