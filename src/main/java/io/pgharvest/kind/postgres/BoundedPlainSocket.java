package io.pgharvest.kind.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketAddress;

/**
 * A plain TCP socket whose input reaches pgjdbc through a {@link ResultBytesBound}, made by
 * {@link SessionSockets}. The bound stays passive (a plain pass-through) unless the session arms it;
 * under TLS the session arms the bound above the TLS layer instead ({@link BoundedTlsSocket}),
 * never this one, which then carries encrypted records.
 */
final class BoundedPlainSocket extends Socket {

    /** Made once, when the socket connects: pgjdbc and the idle-session look ask for the stream. */
    private volatile ResultBytesBound bound;

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

    /** The bound pgjdbc reads through, or {@link ResultBytesBound#NONE} before the socket connected. */
    ResultBytesBound bound() {
        ResultBytesBound made = bound;
        return made != null ? made : ResultBytesBound.NONE;
    }
}
