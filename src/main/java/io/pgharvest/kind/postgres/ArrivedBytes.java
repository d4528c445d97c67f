package io.pgharvest.kind.postgres;

import io.pgharvest.support.wire.SessionSockets;
import java.io.IOException;
import java.net.Socket;

/**
 * Whether the server sent anything on a session that pgharvest is not reading: the number of bytes
 * waiting in the kernel for the session's socket ({@link SessionSockets}), asked without reading
 * or waiting. An idle session receives nothing unless the server has something to say, which for a
 * monitoring session means an error before it closes it (shutdown, a terminated backend, an idle
 * timeout); only then is pgjdbc asked to read it.
 */
final class ArrivedBytes {

    /** For a connection whose socket was not captured: always ask pgjdbc (the slow way, still right). */
    static final ArrivedBytes UNKNOWN = new ArrivedBytes(null);

    private final Socket socket;

    ArrivedBytes(Socket socket) {
        this.socket = socket;
    }

    /** True when bytes are waiting, the socket is gone, or this cannot tell. */
    boolean any() {
        if (socket == null) {
            return true;
        }
        try {
            return socket.isClosed() || socket.getInputStream().available() > 0;
        } catch (IOException e) {
            return true; // a socket that cannot say is looked at the slow way
        }
    }
}
