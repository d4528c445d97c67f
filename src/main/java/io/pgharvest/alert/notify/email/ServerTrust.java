package io.pgharvest.alert.notify.email;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/** The TLS trust of an e-mail receiver whose server's certificate was named ({@code trustedCertificate}). */
final class ServerTrust {

    private ServerTrust() {
    }

    /** The certificate of {@code pem}, or empty when it is not one PEM X.509 certificate. */
    static Optional<X509Certificate> parse(String pem) {
        try {
            var certificate = CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(pem.strip().getBytes(StandardCharsets.US_ASCII)));
            return certificate instanceof X509Certificate x509 ? Optional.of(x509) : Optional.empty();
        } catch (CertificateException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Sockets that trust {@code certificate} only (a chain ending in it), in place of the JDK's trust store. */
    static SSLSocketFactory trusting(X509Certificate certificate) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("trusted", certificate);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("the JDK's default key store and TLS cannot hold one certificate", e);
        }
    }
}
