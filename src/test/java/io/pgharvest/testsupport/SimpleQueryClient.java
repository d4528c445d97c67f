package io.pgharvest.testsupport;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The smallest PostgreSQL wire-protocol client that can read pgbouncer's admin console: startup
 * without a password (trust), one simple Query, rows as text. It exists because pgjdbc 42.7.5 and
 * later cannot open a session on that console: right after logging in it sends
 * {@code SET extra_float_digits}, which pgbouncer releases before the fix of pgbouncer issue 1509
 * reject with "SET failed".
 */
final class SimpleQueryClient {

    private static final int PROTOCOL_3 = 196_608;
    private static final int TIMEOUT_MILLIS = 10_000;

    private SimpleQueryClient() {
    }

    /** Runs {@code sql} on {@code database} at {@code host:port} as {@code user}; values are text, SQL NULL is null. */
    static List<Map<String, String>> query(String host, int port, String user, String database, String sql)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            var out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            var in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            sendStartup(out, user, database);
            readUntilReady(in, null, null);
            byte[] text = (sql + "\0").getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + text.length);
            out.write(text);
            out.flush();
            var columns = new ArrayList<String>();
            var rows = new ArrayList<Map<String, String>>();
            readUntilReady(in, columns, rows);
            out.writeByte('X');
            out.writeInt(4);
            out.flush();
            return rows;
        }
    }

    private static void sendStartup(DataOutputStream out, String user, String database) throws IOException {
        var body = new ByteArrayOutputStream();
        for (String part : List.of("user", user, "database", database)) {
            body.write(part.getBytes(StandardCharsets.UTF_8));
            body.write(0);
        }
        body.write(0);
        out.writeInt(8 + body.size());
        out.writeInt(PROTOCOL_3);
        out.write(body.toByteArray());
        out.flush();
    }

    /** Reads messages up to ReadyForQuery, collecting a result's columns and rows when given lists. */
    private static void readUntilReady(DataInputStream in, List<String> columns, List<Map<String, String>> rows)
            throws IOException {
        String error = null;
        while (true) {
            char type = (char) in.readUnsignedByte();
            byte[] payload = new byte[in.readInt() - 4];
            in.readFully(payload);
            var message = new DataInputStream(new java.io.ByteArrayInputStream(payload));
            switch (type) {
                case 'R' -> {
                    int code = message.readInt();
                    if (code != 0) {
                        throw new IOException("authentication method " + code + " is not supported; use trust");
                    }
                }
                case 'T' -> {
                    int count = message.readUnsignedShort();
                    for (int i = 0; i < count; i++) {
                        columns.add(readCString(message));
                        message.skipBytes(18);
                    }
                }
                case 'D' -> {
                    int count = message.readUnsignedShort();
                    var row = new LinkedHashMap<String, String>();
                    for (int i = 0; i < count; i++) {
                        int length = message.readInt();
                        byte[] value = length < 0 ? null : message.readNBytes(length);
                        row.put(columns.get(i), value == null ? null : new String(value, StandardCharsets.UTF_8));
                    }
                    rows.add(row);
                }
                case 'E' -> error = readError(message);
                case 'Z' -> {
                    if (error != null) {
                        throw new IOException(error);
                    }
                    return;
                }
                default -> {
                    // ParameterStatus, BackendKeyData, CommandComplete, NoticeResponse: nothing to keep
                }
            }
        }
    }

    private static String readError(DataInputStream message) throws IOException {
        var text = new StringBuilder();
        int field;
        while ((field = message.readUnsignedByte()) != 0) {
            String value = readCString(message);
            if (field == 'M' || field == 'C') {
                text.append(text.isEmpty() ? "" : " ").append(field == 'C' ? "[" + value + "]" : value);
            }
        }
        return text.toString();
    }

    private static String readCString(DataInputStream message) throws IOException {
        var bytes = new ByteArrayOutputStream();
        int b;
        while ((b = message.readUnsignedByte()) != 0) {
            bytes.write(b);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
