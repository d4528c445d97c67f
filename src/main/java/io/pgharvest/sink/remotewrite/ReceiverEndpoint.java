package io.pgharvest.sink.remotewrite;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Where and how a remote-write sink sends, parsed once at start-up from its settings (which the
 * configuration binding has already checked).
 *
 * @param url the write endpoint
 * @param authorization the {@code Authorization} header value, or null; a secret
 * @param headers extra headers; their values may be secrets
 * @param tls the TLS context trusting {@code tls-ca-file}, or null for the JDK's default trust
 */
record ReceiverEndpoint(URI url, String authorization, Map<String, String> headers, SSLContext tls,
        Duration connectTimeout, Duration requestTimeout) {

    ReceiverEndpoint {
        headers = Map.copyOf(headers);
    }

    /**
     * @param property the entry's configuration path, for errors
     * @throws IllegalStateException naming the property when the CA file cannot be used
     */
    static ReceiverEndpoint of(String property, RemoteWriteSinkProperties settings) {
        String authorization = null;
        if (settings.bearerToken() != null) {
            authorization = "Bearer " + settings.bearerToken();
        } else if (settings.user() != null) {
            authorization = "Basic " + Base64.getEncoder().encodeToString(
                    (settings.user() + ":" + settings.password()).getBytes(StandardCharsets.UTF_8));
        }
        return new ReceiverEndpoint(URI.create(settings.url().strip()), authorization,
                new TreeMap<>(settings.headers()),
                settings.tlsCaFile() == null ? null : trusting(property + ".tls-ca-file", settings.tlsCaFile()),
                settings.connectTimeout(), settings.requestTimeout());
    }

    /** The URL without query (which may carry a token), for logs. */
    String display() {
        return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort())
                + (url.getRawPath() == null ? "" : url.getRawPath());
    }

    /** Never shows the authorization or header values. */
    @Override
    public String toString() {
        return "ReceiverEndpoint[" + display() + ", headers " + headers.keySet() + "]";
    }

    private static SSLContext trusting(String property, Path caFile) {
        try (InputStream in = Files.newInputStream(caFile)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new IllegalStateException(property + ": no PEM certificate in " + caFile);
            }
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                trusted.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new IllegalStateException(property + ": cannot read " + caFile + " (" + e.getMessage() + ")", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(property + ": " + caFile + " holds no usable PEM certificate ("
                    + e.getMessage() + ")", e);
        }
    }
}
