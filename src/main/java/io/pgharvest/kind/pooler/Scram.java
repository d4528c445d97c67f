package io.pgharvest.kind.pooler;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL, pgbouncer and pgpool use
 * it: no channel binding ({@code n,,}), the user name taken from the startup packet.
 *
 * <p>Limitation: the password is used as UTF-8 without SASLprep normalisation; passwords that
 * SASLprep would change (some non-ASCII ones) do not log in.
 */
final class Scram {

    static final String MECHANISM = "SCRAM-SHA-256";
    private static final String GS2_HEADER = "n,,";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String AUTH_FAILED = "28P01";

    private final byte[] password;
    private final String clientNonce;
    private final String clientFirstBare;
    private byte[] expectedServerSignature;

    Scram(String password) {
        this.password = password.getBytes(StandardCharsets.UTF_8);
        byte[] nonce = new byte[18];
        RANDOM.nextBytes(nonce);
        this.clientNonce = Base64.getEncoder().encodeToString(nonce);
        this.clientFirstBare = "n=*,r=" + clientNonce;
    }

    String clientFirstMessage() {
        return GS2_HEADER + clientFirstBare;
    }

    /** Answers the server-first-message with the client proof. */
    String clientFinalMessage(byte[] serverFirstBytes) throws SQLException {
        String serverFirst = new String(serverFirstBytes, StandardCharsets.UTF_8);
        String nonce = attribute(serverFirst, 'r');
        byte[] salt = Base64.getDecoder().decode(attribute(serverFirst, 's'));
        int iterations = Integer.parseInt(attribute(serverFirst, 'i'));
        if (!nonce.startsWith(clientNonce) || iterations < 1) {
            throw new SQLException("the server's SCRAM answer is invalid", AUTH_FAILED);
        }
        String withoutProof = "c=" + Base64.getEncoder().encodeToString(GS2_HEADER.getBytes(StandardCharsets.US_ASCII))
                + ",r=" + nonce;
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof)
                .getBytes(StandardCharsets.UTF_8);
        try {
            byte[] salted = hi(salt, iterations);
            byte[] clientKey = hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
            byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
            byte[] signature = hmac(storedKey, authMessage);
            byte[] proof = new byte[clientKey.length];
            for (int i = 0; i < proof.length; i++) {
                proof[i] = (byte) (clientKey[i] ^ signature[i]);
            }
            byte[] serverKey = hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
            expectedServerSignature = hmac(serverKey, authMessage);
            return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks HmacSHA256 or SHA-256", e);
        }
    }

    /** Checks that the server knew the password too (it signs the exchange with the server key). */
    void verifyServerFinal(byte[] serverFinalBytes) throws SQLException {
        String serverFinal = new String(serverFinalBytes, StandardCharsets.UTF_8);
        if (serverFinal.startsWith("e=")) {
            throw new SQLException("SCRAM authentication failed: " + serverFinal.substring(2), AUTH_FAILED);
        }
        byte[] signature = Base64.getDecoder().decode(attribute(serverFinal, 'v'));
        if (expectedServerSignature == null || !MessageDigest.isEqual(signature, expectedServerSignature)) {
            throw new SQLException("the server's SCRAM signature is wrong: it does not know the password",
                    AUTH_FAILED);
        }
    }

    /** PBKDF2 with HMAC-SHA-256 and one block, as RFC 5802 defines Hi(). */
    private byte[] hi(byte[] salt, int iterations) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(password, "HmacSHA256"));
        mac.update(salt);
        byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
        byte[] result = u.clone();
        for (int n = 1; n < iterations; n++) {
            u = mac.doFinal(u);
            for (int i = 0; i < result.length; i++) {
                result[i] ^= u[i];
            }
        }
        return result;
    }

    private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    private static String attribute(String message, char name) throws SQLException {
        for (String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        throw new SQLException("the server's SCRAM message lacks '" + name + "'", AUTH_FAILED);
    }
}
