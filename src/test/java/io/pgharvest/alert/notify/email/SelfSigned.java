package io.pgharvest.alert.notify.email;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made by the JDK's keytool (the JDK has no
 * API that issues certificates): its PEM text, and a server TLS context that presents it.
 */
record SelfSigned(Path keyStore, char[] password, String pem) {

    static SelfSigned forLoopback(Path dir) throws Exception {
        Path store = dir.resolve("smtp.p12");
        String password = "test-store-password";
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(List.of(keytool, "-genkeypair", "-alias", "smtp", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", password));
        Path pem = dir.resolve("smtp.pem");
        run(List.of(keytool, "-exportcert", "-rfc", "-alias", "smtp", "-keystore", store.toString(),
                "-storepass", password, "-file", pem.toString()));
        return new SelfSigned(store, password.toCharArray(), Files.readString(pem));
    }

    private static void run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (process.waitFor() != 0) {
            throw new IllegalStateException("keytool failed: " + output);
        }
    }

    SSLContext serverContext() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, password);
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, password);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }
}
