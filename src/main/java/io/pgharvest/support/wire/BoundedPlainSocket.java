package io.pgharvest.support.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

/**
 * A plain TCP socket whose input reaches pgjdbc through a {@link ResultBytesBound}, made by
 * {@link SessionSockets}. The bound stays passive (a plain pass-through) unless the session arms it
 * (or the socket itself, on seeing the StartupMessage go out on it, {@link StartupWatch});
 * under TLS the session arms the bound above the TLS layer instead ({@link BoundedTlsSocket}),
 * never this one, which then carries encrypted records.
 */
final class BoundedPlainSocket extends Socket {

    /** Where a socket that arms its own bound counts dropped notices, or null when its opener arms it. */
    private final LongAdder armsItself;
    /** Made once, when the socket connects: pgjdbc and the idle-session look ask for the stream. */
    private volatile ResultBytesBound bound;
    private volatile OutputStream watched;

    /** @param armsItself see {@link StartupWatch}; null when a session opener arms the bound after the login */
    BoundedPlainSocket(LongAdder armsItself) {
        this.armsItself = armsItself;
    }

    /** pgjdbc connects with a timeout; {@link Socket#connect(SocketAddress)} comes here too. */
    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        super.connect(endpoint, timeout);
        bound = new ResultBytesBound(super.getInputStream());
    }

    @Override
    public InputStream getInputStream() throws IOException {
        ResultBytesBound made = bound;
        return made != null ? made : super.getInputStream();
    }

    /** Watched for the StartupMessage when this socket arms itself; pgjdbc asks once per stream it makes. */
    @Override
    public OutputStream getOutputStream() throws IOException {
        if (armsItself == null) {
            return super.getOutputStream();
        }
        OutputStream made = watched;
        if (made == null) {
            made = new StartupWatch(super.getOutputStream(), () -> bound().follow(armsItself));
            watched = made;
        }
        return made;
    }

    /** The bound pgjdbc reads through, or {@link ResultBytesBound#NONE} before the socket connected. */
    ResultBytesBound bound() {
        ResultBytesBound made = bound;
        return made != null ? made : ResultBytesBound.NONE;
    }
}
