package io.pgharvest.kind.pooler;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The smallest PostgreSQL wire-protocol (v3) client that can read the admin consoles of
 * pgbouncer and pgpool: startup, authentication (trust, cleartext password, md5, SCRAM-SHA-256),
 * TLS as sslmode asks, and simple Query messages whose results come back as text.
 *
 * <p>Why not pgjdbc: it always sends {@code extra_float_digits} (in the startup packet, or as a
 * SET right after login), and pgbouncer's console before the fix of pgbouncer issue 1509
 * (Debian 12 ships 1.18) refuses both. Nothing else of pgjdbc is needed for SHOW commands.
 *
 * <p>Timeouts are client-side: the consoles have no statement_timeout. A query that outlives its
 * limit leaves the protocol stream in an unknown state, so the client closes itself and reports
 * the session as lost (SQLSTATE 08006). Errors never contain the password.
 *
 * <p>Not thread-safe: owned by one reaper's session.
 */
final class AdminConsoleClient implements AutoCloseable {

    private static final int PROTOCOL_3 = 196_608;
    private static final int SSL_REQUEST = 80_877_103;
    static final String CONNECTION_FAILURE = "08006";
    static final String CANNOT_CONNECT = "08001";
    private static final String INVALID_PASSWORD = "28P01";
    private static final String PROTOCOL_VIOLATION = "08P01";
    /** Larger messages are not console output; refusing them bounds memory. */
    private static final int MAX_MESSAGE = 64 << 20;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final ConnectionString conn;
    private boolean broken;

    private AdminConsoleClient(Socket socket, ConnectionString conn) throws IOException {
        this.socket = socket;
        this.conn = conn;
        this.in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream()));
    }

    /** One result: column names and type OIDs from RowDescription, and the rows as text (SQL NULL is null). */
    record Result(List<String> columns, List<Integer> types, List<List<String>> rows) {
        static final Result EMPTY = new Result(List.of(), List.of(), List.of());
    }

    /**
     * Logs in to the first of the string's hosts that answers, within {@code timeout} per host
     * (TCP connect, TLS and login together).
     */
    static AdminConsoleClient connect(ConnectionString conn, AdminConsoleTls tls, Duration timeout) throws SQLException {
        SQLException failure = null;
        for (ConnectionString.HostPort host : conn.hosts()) {
            try {
                return connectTo(host, conn, tls, timeout);
            } catch (SQLException e) {
                if (INVALID_PASSWORD.equals(e.getSQLState())) {
                    throw e; // the same credentials will fail on the next host too
                }
                failure = e;
            }
        }
        throw failure;
    }

    private static AdminConsoleClient connectTo(ConnectionString.HostPort host, ConnectionString conn, AdminConsoleTls tls,
            Duration timeout) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(new InetSocketAddress(host.host(), host.port()), millisUntil(deadline));
            socket.setSoTimeout(millisUntil(deadline));
            Socket session = tls.negotiate(socket, host, AdminConsoleClient::requestTls);
            var client = new AdminConsoleClient(session, conn);
            client.startup();
            client.authenticateAndAwaitReady(deadline);
            return client;
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw new SQLException("login timed out after " + timeout.toMillis() + " ms: " + host
                    + " did not complete the login in time", CANNOT_CONNECT, e);
        } catch (ConnectException e) {
            closeQuietly(socket);
            throw new SQLException("connection refused by " + host + ": nothing listens there", CANNOT_CONNECT, e);
        } catch (EOFException e) {
            closeQuietly(socket);
            throw new SQLException(host + " closed the connection during the login", CANNOT_CONNECT, e);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new SQLException(conn.redact("cannot connect to " + host + ": " + e.getMessage()), CANNOT_CONNECT, e);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    /** Sends SSLRequest on the plain socket; true when the server agreed ('S'). */
    private static boolean requestTls(Socket socket) throws IOException {
        var request = new DataOutputStream(socket.getOutputStream());
        request.writeInt(8);
        request.writeInt(SSL_REQUEST);
        request.flush();
        int answer = socket.getInputStream().read();
        if (answer == 'S') {
            return true;
        }
        if (answer == 'N') {
            return false;
        }
        throw new IOException("not a PostgreSQL-protocol server: it answered the TLS request with "
                + (answer < 0 ? "end of stream" : "byte " + answer));
    }

    private void startup() throws IOException {
        var body = new ByteArrayOutputStream();
        // Deliberately nothing else: pgbouncer's console refuses parameters it does not track.
        List<String> parameters = List.of("user", conn.user(), "database", conn.database(),
                "application_name", conn.parameters().getOrDefault("application_name",
                        SessionSettings.APPLICATION_NAME));
        for (String part : parameters) {
            body.write(part.getBytes(StandardCharsets.UTF_8));
            body.write(0);
        }
        body.write(0);
        out.writeInt(8 + body.size());
        out.writeInt(PROTOCOL_3);
        out.write(body.toByteArray());
        out.flush();
    }

    private void authenticateAndAwaitReady(long deadline) throws IOException, SQLException {
        ScramLogin scram = null;
        while (true) {
            socket.setSoTimeout(millisUntil(deadline));
            char type = (char) in.readUnsignedByte();
            DataInputStream message = readBody();
            switch (type) {
                case 'R' -> scram = authenticate(message, scram);
                case 'E' -> throw error(message);
                case 'Z' -> {
                    return;
                }
                default -> {
                    // ParameterStatus, BackendKeyData, NoticeResponse: nothing the console client needs
                }
            }
        }
    }

    private ScramLogin authenticate(DataInputStream message, ScramLogin scram) throws IOException, SQLException {
        int code = message.readInt();
        switch (code) {
            case 0 -> {
                return null; // AuthenticationOk
            }
            case 3 -> sendPassword(password());
            case 5 -> {
                byte[] salt = message.readNBytes(4);
                sendPassword("md5" + md5Hex(md5Hex(password() + conn.user()).getBytes(StandardCharsets.US_ASCII),
                        salt));
            }
            case 10 -> {
                List<String> mechanisms = new ArrayList<>();
                String mechanism;
                while (!(mechanism = readCString(message)).isEmpty()) {
                    mechanisms.add(mechanism);
                }
                ScramLogin started = ScramLogin.start(mechanisms, password(), CANNOT_CONNECT);
                byte[] first = started.clientFirstMessage().getBytes(StandardCharsets.UTF_8);
                byte[] name = (started.mechanism() + "\0").getBytes(StandardCharsets.US_ASCII);
                out.writeByte('p');
                out.writeInt(4 + name.length + 4 + first.length);
                out.write(name);
                out.writeInt(first.length);
                out.write(first);
                out.flush();
                return started;
            }
            case 11 -> sendSasl(requireScram(scram).clientFinalMessage(rest(message)));
            case 12 -> requireScram(scram).verifyServerFinal(rest(message));
            default -> throw new SQLException("authentication method " + code
                    + " is not supported by pgharvest's console client (trust, password, md5 and scram-sha-256 are)",
                    CANNOT_CONNECT);
        }
        return scram;
    }

    private static ScramLogin requireScram(ScramLogin scram) throws SQLException {
        if (scram == null) {
            throw new SQLException("the server continued a SASL exchange that was never started", PROTOCOL_VIOLATION);
        }
        return scram;
    }

    private String password() throws SQLException {
        return conn.password().orElseThrow(() -> new SQLException("the server asks user " + conn.user()
                + " for a password and the connection string has none", INVALID_PASSWORD));
    }

    private void sendPassword(String text) throws IOException {
        byte[] bytes = (text + "\0").getBytes(StandardCharsets.UTF_8);
        out.writeByte('p');
        out.writeInt(4 + bytes.length);
        out.write(bytes);
        out.flush();
    }

    private void sendSasl(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeByte('p');
        out.writeInt(4 + bytes.length);
        out.write(bytes);
        out.flush();
    }

    /**
     * Runs one command with the simple protocol and returns its last result (SHOW commands have
     * exactly one).
     *
     * @throws SQLException with the server's SQLSTATE for an ErrorResponse (the session stays
     *     usable), or 08006 when the server did not answer within {@code timeout} or the
     *     connection failed (the session is closed then)
     */
    Result query(String sql, Duration timeout) throws SQLException {
        if (broken) {
            throw new SQLException("the console session is closed", CONNECTION_FAILURE);
        }
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            socket.setSoTimeout(millisUntil(deadline));
            byte[] text = (sql + "\0").getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + text.length);
            out.write(text);
            out.flush();
            return readResult(deadline);
        } catch (SocketTimeoutException e) {
            close();
            throw new SQLException("no answer within " + timeout.toMillis() + " ms to: " + sql, CONNECTION_FAILURE, e);
        } catch (IOException e) {
            close();
            throw new SQLException("console session lost: " + e.getMessage(), CONNECTION_FAILURE, e);
        }
    }

    /** Reads up to ReadyForQuery; the whole answer must arrive before {@code deadline}, not each message. */
    private Result readResult(long deadline) throws IOException, SQLException {
        List<String> columns = List.of();
        List<Integer> types = List.of();
        List<List<String>> rows = new ArrayList<>();
        Result last = Result.EMPTY;
        SQLException error = null;
        while (true) {
            if (in.available() == 0) {
                socket.setSoTimeout(millisUntil(deadline));
            }
            char type = (char) in.readUnsignedByte();
            DataInputStream message = readBody();
            switch (type) {
                case 'T' -> {
                    int count = message.readUnsignedShort();
                    columns = new ArrayList<>(count);
                    types = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        columns.add(readCString(message));
                        message.skipNBytes(6); // table OID, column number
                        types.add(message.readInt());
                        message.skipNBytes(8); // type size, modifier, format
                    }
                    rows = new ArrayList<>();
                }
                case 'D' -> rows.add(readRow(message));
                case 'C' -> last = new Result(List.copyOf(columns), List.copyOf(types), List.copyOf(rows));
                case 'E' -> error = error(message);
                case 'Z' -> {
                    if (error != null) {
                        throw error;
                    }
                    return last;
                }
                default -> {
                    // EmptyQueryResponse, NoticeResponse, ParameterStatus: nothing to keep
                }
            }
        }
    }

    private static List<String> readRow(DataInputStream message) throws IOException {
        int count = message.readUnsignedShort();
        var row = new ArrayList<String>(count);
        for (int i = 0; i < count; i++) {
            int length = message.readInt();
            row.add(length < 0 ? null : new String(message.readNBytes(length), StandardCharsets.UTF_8));
        }
        return row;
    }

    private DataInputStream readBody() throws IOException {
        int length = in.readInt() - 4;
        if (length < 0 || length > MAX_MESSAGE) {
            throw new IOException("malformed message of length " + length + ": not a PostgreSQL-protocol server");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new DataInputStream(new java.io.ByteArrayInputStream(payload));
    }

    private SQLException error(DataInputStream message) throws IOException {
        String state = null;
        String text = null;
        int field;
        while ((field = message.readUnsignedByte()) != 0) {
            String value = readCString(message);
            if (field == 'C') {
                state = value;
            } else if (field == 'M') {
                text = value;
            }
        }
        return new SQLException(conn.redact(String.valueOf(text)), state);
    }

    /** Whether the session can run no more queries (connection lost or closed). */
    boolean isClosed() {
        return broken || socket.isClosed();
    }

    @Override
    public void close() {
        if (broken) {
            return;
        }
        broken = true;
        try {
            out.writeByte('X');
            out.writeInt(4);
            out.flush();
        } catch (IOException ignored) {
            // the connection is gone already
        }
        closeQuietly(socket);
    }

    private static byte[] rest(DataInputStream message) throws IOException {
        return message.readAllBytes();
    }

    private static String readCString(DataInputStream message) throws IOException {
        var bytes = new ByteArrayOutputStream();
        int b;
        while ((b = message.readUnsignedByte()) != 0) {
            bytes.write(b);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String md5Hex(byte[]... parts) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            for (byte[] part : parts) {
                md5.update(part);
            }
            return HexFormat.of().formatHex(md5.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    private static String md5Hex(String text) {
        return md5Hex(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String md5Hex(byte[] hex, byte[] salt) {
        return md5Hex(new byte[][] {hex, salt});
    }

    private static int millisUntil(long deadline) throws SocketTimeoutException {
        long millis = (deadline - System.nanoTime()) / 1_000_000;
        if (millis <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, millis);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
