package io.pgharvest.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a loopback port in front of a real server that can be frozen: from then on it
 * keeps every connection open but forwards nothing, like a server or network that stopped
 * answering without closing anything.
 */
public final class FreezableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;

    public FreezableProxy(String targetHost, int targetPort) throws IOException {
        this(targetHost, targetPort, 0);
    }

    /** A proxy listening on {@code listenPort} (0: any free one), such as the port of one closed before: the server is back. */
    public FreezableProxy(String targetHost, int targetPort, int listenPort) throws IOException {
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort), 50);
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        Thread.ofVirtual().name("freezable-proxy").start(this::acceptAll);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** From now on nothing is forwarded in either direction; connections stay open. */
    public void freeze() {
        frozen = true;
    }

    /** Forwards again, the held bytes first: the server answers once more (a test leaves a shared store as found). */
    public void thaw() {
        frozen = false;
    }

    private void acceptAll() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(server);
                Thread.ofVirtual().start(() -> pump(client, server));
                Thread.ofVirtual().start(() -> pump(server, client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                while (frozen) {
                    Thread.sleep(50); // holds the bytes: the peer waits forever
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // a side closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
