package io.pgharvest.testsupport;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A fake PostgreSQL server on a loopback port that asks every client for its password in clear
 * text and records it, as a server of an attacker's choice would. Declines TLS and GSS
 * encryption, then fails the login.
 */
public final class PasswordCatcher implements AutoCloseable {

    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;
    private static final int CLEARTEXT_PASSWORD = 3;

    private final ServerSocket socket;
    private final List<String> passwords = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    public PasswordCatcher() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofVirtual().name("password-catcher").start(this::acceptAll);
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** The passwords clients sent, in order. */
    public List<String> passwords() {
        return List.copyOf(passwords);
    }

    private void acceptAll() {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                Thread.ofVirtual().start(() -> converse(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void converse(Socket client) {
        try (client; var in = new DataInputStream(client.getInputStream());
                var out = new DataOutputStream(client.getOutputStream())) {
            while (true) {
                int length = in.readInt();
                int code = in.readInt();
                if (code == SSL_REQUEST || code == GSS_REQUEST) {
                    out.writeByte('N');
                    out.flush();
                    continue;
                }
                in.readNBytes(length - 8); // startup parameters
                break;
            }
            out.writeByte('R');
            out.writeInt(8);
            out.writeInt(CLEARTEXT_PASSWORD);
            out.flush();
            if (in.readByte() != 'p') {
                return;
            }
            byte[] password = in.readNBytes(in.readInt() - 4);
            passwords.add(new String(password, 0, password.length - 1, StandardCharsets.UTF_8));
            byte[] error = "SFATAL\0C28P01\0Mpassword authentication failed\0\0".getBytes(StandardCharsets.UTF_8);
            out.writeByte('E');
            out.writeInt(4 + error.length);
            out.write(error);
            out.flush();
        } catch (IOException e) {
            // the client gave up; nothing to record
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        acceptor.interrupt();
    }
}
