package io.pgharvest.demo;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;

/**
 * The demo's history: with the {@code demo} profile, one more sink, a PostgreSQL sink into the
 * database {@value #DATABASE} of the demo's own embedded server, whose cluster is kept between
 * runs (under the temp directory, named for the data directory), so a newcomer who restarts the
 * demo keeps the charts and can choose 6 hours. Added to the environment before any sink is bound,
 * on a port chosen now (the server starts there later, {@link DemoDatabase}) with the password of
 * {@code <data-dir>/}{@value #PASSWORD_FILE} (generated once, owner-only). With no
 * {@code pgharvest.sinks} configured the embedded default sinks (JSON lines, Prometheus) are
 * named too, since a configured list replaces them.
 */
public final class DemoHistory implements EnvironmentPostProcessor {

    static final String DATABASE = "pgharvest_history";
    static final String PASSWORD_FILE = "demo-postgres-password";
    /** Where the environment tells {@link DemoDatabase} the port the sink was given. */
    static final String PORT_PROPERTY = "pgharvest.demo.port";
    private static final String PREFIX = "pgharvest-demo-";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.matchesProfiles("demo")) {
            return;
        }
        Path dataDir = dataDir(environment.getProperty("pgharvest.data-dir", "./pgharvest-data"));
        String password = password(dataDir);
        int port = freePort();
        var added = new LinkedHashMap<String, Object>();
        int next = 0;
        while (environment.containsProperty("pgharvest.sinks[" + next + "].type")) {
            next++;
        }
        // Spring binds a list from one property source: the configured entries go into ours too.
        for (var source : environment.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> names) {
                for (String name : names.getPropertyNames()) {
                    if (name.startsWith("pgharvest.sinks[") && !added.containsKey(name)) {
                        added.put(name, environment.getProperty(name));
                    }
                }
            }
        }
        if (next == 0) {
            added.put("pgharvest.sinks[0].type", "jsonfile");
            added.put("pgharvest.sinks[1].type", "prometheus");
            next = 2;
        }
        String sink = "pgharvest.sinks[" + next + "]";
        added.put(sink + ".type", "postgres");
        added.put(sink + ".name", "demo-history");
        added.put(sink + ".url", "postgresql://postgres:" + password + "@" + DemoDatabase.HOST + ":" + port + "/" + DATABASE);
        added.put(PORT_PROPERTY, port);
        environment.getPropertySources().addFirst(new MapPropertySource("pgharvest-demo-history", added));
    }

    static Path dataDir(String setting) {
        return Path.of(setting).toAbsolutePath().normalize();
    }

    /** The kept cluster's directory for {@code dataDir}: one per data directory, outside it (the server account reads it). */
    static Path clusterDir(Path dataDir) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(dataDir.toString().getBytes(StandardCharsets.UTF_8));
            return Path.of(System.getProperty("java.io.tmpdir"), PREFIX + HexFormat.of().formatHex(digest, 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The demo server's password, made once and kept owner-only in the data directory. */
    static String password(Path dataDir) {
        Path file = dataDir.resolve(PASSWORD_FILE);
        try {
            if (Files.exists(file)) {
                return Files.readString(file, StandardCharsets.UTF_8).strip();
            }
            AtomicFiles.createDirectories(dataDir);
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            AtomicFiles.write(file, password.getBytes(StandardCharsets.UTF_8));
            return password;
        } catch (IOException e) {
            throw new UncheckedIOException("Demo profile: cannot keep the demo server's password in " + file, e);
        }
    }

    private static int freePort() {
        try (var socket = new ServerSocket(0, 1, InetAddress.getByName(DemoDatabase.HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Demo profile: cannot find a free local port", e);
        }
    }
}
