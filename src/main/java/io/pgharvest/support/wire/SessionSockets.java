package io.pgharvest.support.wire;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.Callable;
import javax.net.SocketFactory;
import javax.net.ssl.SSLSocket;

/**
 * The socket factory of every session pgharvest opens (pgjdbc's {@code socketFactory} property):
 * plain sockets, as pgjdbc's default factory makes them, of which the one a login ends up using is
 * handed back to {@code kind.postgres.SessionOpener} ({@link #capture}). TLS, when negotiated, is layered over it
 * by pgjdbc; this socket stays the one that reads the network.
 *
 * <p>Why: a reaper looks at its idle session every few seconds ({@code kind.postgres.ArrivedBytes}). pgjdbc's own
 * way to look (a notification check) sets a 1 ms socket timeout and reads, which costs about 0.26 ms
 * of CPU on a virtual thread each time and doubled the collector's CPU at 60 sources; the kernel's
 * count of bytes waiting on this socket costs about 1 µs and tells the same thing.
 *
 * <p>Each socket reads through a {@link ResultBytesBound} ({@link BoundedPlainSocket}), and a TLS
 * layer over it is made by {@link SessionTls}, which puts a bound above TLS ({@link BoundedTlsSocket}):
 * the login hands back the bound that reads plain protocol, the TLS one when TLS was negotiated,
 * for the session to arm ({@link Captured#bound}).
 *
 * <p>pgjdbc instantiates this class by name for every connection and calls it on the thread that
 * connects; a socket is recorded only while that thread runs {@link #capture}, so the sockets of
 * cancel requests (made on other threads) are never kept. A socket made while no login is captured
 * (a pool's, {@link OwnSessions}, or a cancel request's) arms its own bound when the StartupMessage
 * goes out ({@link StartupWatch}) and counts dropped notices in {@link OwnSessions}.
 */
public final class SessionSockets extends SocketFactory {

    private static final ThreadLocal<Login> CAPTURED = new ThreadLocal<>();

    /** The sockets of the login attempt running on a thread: the last one wins. */
    private static final class Login {
        BoundedPlainSocket plain;
        BoundedTlsSocket tls;
    }

    /**
     * What {@code login} returned, with the last socket this factory made on this thread meanwhile
     * ({@code socket}, or null) and the bound that reads the session's plain protocol above any TLS
     * ({@code bound}, {@link ResultBytesBound#NONE} without a socket).
     */
    public record Captured<T>(T value, Socket socket, ResultBytesBound bound) {
    }

    /** Runs {@code login} on this thread and returns what it returned with the socket it connected with, or null. */
    public static <T> Captured<T> capture(Callable<T> login) throws Exception {
        Login last = new Login();
        CAPTURED.set(last);
        try {
            T value = login.call();
            ResultBytesBound bound = last.tls != null ? last.tls.bound()
                    : last.plain != null ? last.plain.bound() : ResultBytesBound.NONE;
            return new Captured<>(value, last.plain, bound);
        } finally {
            CAPTURED.remove();
        }
    }

    /**
     * {@code tls}, made by {@link SessionTls} over this thread's last socket, inside a
     * {@link BoundedTlsSocket}: armed by the login being captured, or arming itself when none is.
     */
    static SSLSocket layered(SSLSocket tls) throws IOException {
        Login last = CAPTURED.get();
        if (last == null) {
            return new BoundedTlsSocket(tls, OwnSessions.DROPPED); // arms itself: a pool's, or a cancel request's
        }
        last.tls = new BoundedTlsSocket(tls, null);
        return last.tls;
    }

    /** pgjdbc makes unconnected sockets and connects them itself, with its connect timeout. */
    @Override
    public Socket createSocket() {
        Login last = CAPTURED.get();
        BoundedPlainSocket socket = new BoundedPlainSocket(last == null ? OwnSessions.DROPPED : null);
        if (last != null) {
            last.plain = socket; // a later attempt (another host, TLS refused) replaces an earlier one
            last.tls = null;
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
