package io.pgharvest.alert.notify.email;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * The STARTTLS step GreenMail's SMTP server lacks, in front of it: it greets, answers EHLO with
 * STARTTLS as its one extension, refuses every other command until the client switched to TLS
 * (with {@code context}'s certificate), then relays the TLS session's plain text to GreenMail,
 * which authenticates and receives the mail. {@link #tlsProtocols()} records each session that
 * reached TLS, so a test can tell the mail crossed it.
 */
final class StartTlsFront implements AutoCloseable {

    private final ServerSocket server;
    private final SSLContext context;
    private final int backendPort;
    private final List<String> tlsProtocols = new CopyOnWriteArrayList<>();

    StartTlsFront(SSLContext context, int backendPort) throws IOException {
        this.context = context;
        this.backendPort = backendPort;
        this.server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("starttls-front").start(this::acceptAll);
    }

    int port() {
        return server.getLocalPort();
    }

    /** The TLS protocol of every session that switched to TLS, in order. */
    List<String> tlsProtocols() {
        return List.copyOf(tlsProtocols);
    }

    private void acceptAll() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Thread.ofVirtual().start(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            write(out, "220 localhost ESMTP starttls-front");
            for (String line; (line = readLine(in)) != null; ) {
                String command = line.length() >= 4 ? line.substring(0, 4).toUpperCase(java.util.Locale.ROOT) : line;
                switch (command) {
                    case "EHLO", "HELO" -> write(out, "250-localhost\r\n250 STARTTLS");
                    case "STAR" -> {
                        write(out, "220 2.0.0 Ready to start TLS");
                        relayOverTls(client);
                        return;
                    }
                    case "QUIT" -> {
                        write(out, "221 2.0.0 Bye");
                        return;
                    }
                    default -> write(out, "530 5.7.0 Must issue a STARTTLS command first");
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private void relayOverTls(Socket client) throws IOException {
        try (var tls = (SSLSocket) context.getSocketFactory().createSocket(client, null, client.getPort(), false);
             var backend = new Socket(InetAddress.getLoopbackAddress(), backendPort)) {
            tls.setUseClientMode(false);
            tls.startHandshake();
            tlsProtocols.add(tls.getSession().getProtocol());
            InputStream fromBackend = backend.getInputStream();
            readLine(fromBackend); // its greeting: the client had ours
            Thread upstream = Thread.ofVirtual().start(() -> copy(tls, backend));
            copy(backend, tls);
            upstream.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void copy(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
            to.shutdownOutput();
        } catch (IOException | UnsupportedOperationException e) {
            // one side closed: the session is over
        }
    }

    /** One CRLF-terminated line, read byte by byte so that nothing after it is consumed (TLS follows). */
    private static String readLine(InputStream in) throws IOException {
        var line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != -1; ) {
            if (b == '\n') {
                String text = line.toString(StandardCharsets.US_ASCII);
                return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
            }
            line.write(b);
        }
        return null;
    }

    private static void write(OutputStream out, String reply) throws IOException {
        out.write((reply + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
