package io.pgharvest.testsupport;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a loopback port in front of a real PostgreSQL server that reads the protocol's
 * frontend messages and counts those that make the server answer and wait for the next request:
 * Sync (extended protocol) and Query (simple protocol). Their number is the number of network
 * round trips the client asked for. SSL is refused so that the stream stays readable.
 */
public final class RoundTripCountingProxy implements AutoCloseable {

    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicLong roundTrips = new AtomicLong();

    public RoundTripCountingProxy(String targetHost, int targetPort) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        Thread.ofVirtual().name("round-trip-proxy").start(this::acceptAll);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Sync and Query messages sent by every client so far. */
    public long roundTrips() {
        return roundTrips.get();
    }

    private void acceptAll() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(server);
                Thread.ofVirtual().start(() -> frontend(client, server));
                Thread.ofVirtual().start(() -> copy(server, client));
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Forwards the client's messages one by one, counting Sync ('S') and Query ('Q'). */
    private void frontend(Socket client, Socket server) {
        try (var in = new DataInputStream(client.getInputStream());
                OutputStream out = new BufferedOutputStream(server.getOutputStream(), 8192);
                OutputStream back = client.getOutputStream()) {
            // Untyped start-up packets first: refuse SSL and GSS encryption, forward the start-up message.
            while (true) {
                int length = in.readInt();
                byte[] body = in.readNBytes(length - 4);
                int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | (body[3] & 0xff);
                if (length == 8 && (code == SSL_REQUEST || code == GSS_REQUEST)) {
                    back.write('N');
                    back.flush();
                    continue;
                }
                writeInt(out, length);
                out.write(body);
                out.flush();
                break;
            }
            while (true) {
                int type = in.read();
                if (type < 0) {
                    return;
                }
                int length = in.readInt();
                byte[] body = in.readNBytes(length - 4);
                if (type == 'S' || type == 'Q') {
                    roundTrips.incrementAndGet();
                }
                out.write(type);
                writeInt(out, length);
                out.write(body);
                if (in.available() == 0) {
                    out.flush(); // the client waits for an answer now (or sends more later)
                }
            }
        } catch (IOException e) {
            // a side closed
        }
    }

    private static void writeInt(OutputStream out, int value) throws IOException {
        out.write(value >>> 24);
        out.write(value >>> 16);
        out.write(value >>> 8);
        out.write(value);
    }

    private static void copy(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
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
