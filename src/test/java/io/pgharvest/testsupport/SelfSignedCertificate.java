package io.pgharvest.testsupport;

import io.pgharvest.embedded.ServerAccount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

/**
 * A key and a self-signed certificate for {@code localhost}, made by {@code openssl} (installed by
 * the test setup) for a test server that speaks TLS: pgbouncer's clients, a PostgreSQL server.
 *
 * @param key the private key, readable by its owner only (PostgreSQL refuses a key others can read)
 * @param certificate the certificate
 */
public record SelfSignedCertificate(Path key, Path certificate) {

    /** Makes key.pem and cert.pem in {@code dir}, owned with {@code dir} by the account servers run as. */
    public static SelfSignedCertificate makeIn(Path dir, ServerAccount account) throws IOException {
        Path key = dir.resolve("key.pem");
        Path certificate = dir.resolve("cert.pem");
        Path log = dir.resolve("openssl.log");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-keyout", key.toString(), "-out", certificate.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                throw new IllegalStateException("openssl could not make a certificate: " + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        account.handOver(dir);
        account.handOver(key);
        account.handOver(certificate);
        return new SelfSignedCertificate(key, certificate);
    }
}
