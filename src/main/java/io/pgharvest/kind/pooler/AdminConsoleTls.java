package io.pgharvest.kind.pooler;

import io.pgharvest.model.connection.ConnectionString;
import java.io.IOException;
import java.net.Socket;
import java.security.cert.X509Certificate;
import java.security.GeneralSecurityException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * What the console client does about TLS, from the connection string's {@code sslmode} (libpq's
 * default is prefer). As in libpq, prefer and require encrypt without checking the server's
 * certificate; verify-ca and verify-full are refused (the console client has no certificate
 * checks), and so is a source that would otherwise send its password unverified where the
 * operator asked for verification.
 */
enum AdminConsoleTls {
    /** disable, allow: plain TCP (allow tries without TLS first and consoles accept that). */
    OFF,
    /** prefer: TLS when the server offers it, plain otherwise. */
    PREFER,
    /** require: TLS or no session. */
    REQUIRE;

    /** Sends the TLS request on a plain socket and reports whether the server agreed. */
    interface Request {
        boolean send(Socket plain) throws IOException;
    }

    /** Why {@code sslmode} cannot be honoured on a console, or empty. SourceRules checks the same. */
    static Optional<String> problem(ConnectionString conn) {
        String mode = conn.parameters().get("sslmode");
        if (mode != null && mode.toLowerCase(Locale.ROOT).startsWith("verify")) {
            return Optional.of("sslmode=" + mode + " is not supported for pgbouncer and pgpool sources: their"
                    + " console client cannot verify certificates; use require (encrypted, not verified)");
        }
        return Optional.empty();
    }

    static AdminConsoleTls of(ConnectionString conn) throws SQLException {
        Optional<String> problem = problem(conn);
        if (problem.isPresent()) {
            throw new SQLException(problem.get(), AdminConsoleClient.CANNOT_CONNECT);
        }
        return switch (conn.parameters().getOrDefault("sslmode", "prefer")) {
            case "disable", "allow" -> OFF;
            case "require" -> REQUIRE;
            default -> PREFER;
        };
    }

    /** The socket to talk on: the plain one, or TLS over it. */
    Socket negotiate(Socket plain, ConnectionString.HostPort host, Request request) throws IOException, SQLException {
        if (this == OFF) {
            return plain;
        }
        if (!request.send(plain)) {
            if (this == REQUIRE) {
                throw new SQLException("TLS not offered: " + host + " does not support SSL, but sslmode=require",
                        AdminConsoleClient.CANNOT_CONNECT);
            }
            return plain;
        }
        SSLSocket tls = (SSLSocket) unverified().getSocketFactory().createSocket(plain, host.host(), host.port(), true);
        tls.setUseClientMode(true);
        tls.startHandshake();
        return tls;
    }

    /** Encryption without certificate checks: libpq's meaning of prefer and require. */
    private static SSLContext unverified() throws IOException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AcceptAnyCertificate()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    private static final class AcceptAnyCertificate implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            // never a server here
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // sslmode prefer/require: encrypted but not verified, as in libpq
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
