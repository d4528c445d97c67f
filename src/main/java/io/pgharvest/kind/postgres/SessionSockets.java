package io.pgharvest.kind.postgres;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.Callable;
import javax.net.SocketFactory;

/**
 * The socket factory of every session pgharvest opens (pgjdbc's {@code socketFactory} property):
 * plain sockets, as pgjdbc's default factory makes them, of which the one a login ends up using is
 * handed back to {@link SessionOpener} ({@link #capture}). TLS, when negotiated, is layered over it
 * by pgjdbc; this socket stays the one that reads the network.
 *
 * <p>Why: a reaper looks at its idle session every few seconds ({@link ArrivedBytes}). pgjdbc's own
 * way to look (a notification check) sets a 1 ms socket timeout and reads, which costs about 0.26 ms
 * of CPU on a virtual thread each time and doubled the collector's CPU at 60 sources; the kernel's
 * count of bytes waiting on this socket costs about 1 µs and tells the same thing.
 *
 * <p>pgjdbc instantiates this class by name for every connection and calls it on the thread that
 * connects; a socket is recorded only while that thread runs {@link #capture}, so the sockets of
 * cancel requests (made on other threads) are never kept.
 */
public final class SessionSockets extends SocketFactory {

    private static final ThreadLocal<Socket[]> CAPTURED = new ThreadLocal<>();

    /** What {@code login} returned, with the last socket this factory made on this thread meanwhile. */
    record Captured<T>(T value, Socket socket) {
    }

    /** Runs {@code login} on this thread and returns what it returned with the socket it connected with, or null. */
    static <T> Captured<T> capture(Callable<T> login) throws Exception {
        Socket[] last = new Socket[1];
        CAPTURED.set(last);
        try {
            T value = login.call();
            return new Captured<>(value, last[0]);
        } finally {
            CAPTURED.remove();
        }
    }

    /** pgjdbc makes unconnected sockets and connects them itself, with its connect timeout. */
    @Override
    public Socket createSocket() {
        Socket socket = new Socket();
        Socket[] last = CAPTURED.get();
        if (last != null) {
            last[0] = socket; // a later attempt (another host, TLS refused) replaces an earlier one
        }
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        throw unused();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw unused();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        throw unused();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        throw unused();
    }

    private static IOException unused() {
        return new IOException("pgharvest's session sockets are made unconnected; pgjdbc connects them");
    }
}
