package io.pgharvest.api;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer token of the admin API: {@code pgharvest.api.token} when configured, otherwise one
 * generated once (32 random bytes, base64url) and kept in {@code <data-dir>/api-token} (0600),
 * reused on every restart. Only the file's path is ever logged, never the token. Only a digest is
 * kept in memory, and comparison is constant-time so response timing reveals nothing.
 */
public final class ApiToken {

    public static final String FILE_NAME = "api-token";
    private static final Logger log = LoggerFactory.getLogger(ApiToken.class);
    private static final int RANDOM_BYTES = 32;
    private static final int MIN_LENGTH = 16;
    private static final Pattern VISIBLE_ASCII = Pattern.compile("[\\x21-\\x7E]+");

    private final byte[] digest;

    private ApiToken(String token) {
        this.digest = sha256(token);
    }

    public static ApiToken resolve(HarvestProperties properties, DataDirectory dataDirectory) {
        String configured = properties.api().token();
        if (configured != null) {
            requireAcceptable(configured);
            log.info("Admin API token: from pgharvest.api.token");
            return new ApiToken(configured);
        }
        Path file = dataDirectory.resolve(FILE_NAME);
        try {
            String stored = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).strip() : "";
            if (!stored.isEmpty()) {
                warnIfReadableByOthers(file);
                log.info("Admin API token: read from {}", file);
                return new ApiToken(stored);
            }
            String generated = generate();
            AtomicFiles.write(file, generated.getBytes(StandardCharsets.UTF_8));
            log.info("Admin API token: generated and stored in {} (readable by this user only);"
                    + " send it as 'Authorization: Bearer <token>'", file);
            return new ApiToken(generated);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the API token file " + file
                    + " (set pgharvest.api.token instead)", e);
        }
    }

    /**
     * Refuses a configured token that is too short or holds characters a header cannot carry
     * intact. The message names the property and the rule, never the value: the operator may have
     * pasted the real token with one character missing.
     */
    private static void requireAcceptable(String token) {
        if (token.length() < MIN_LENGTH) {
            throw new IllegalStateException("pgharvest.api.token must be at least " + MIN_LENGTH
                    + " characters long (the value is not shown: it is a secret)");
        }
        if (!VISIBLE_ASCII.matcher(token).matches()) {
            throw new IllegalStateException("pgharvest.api.token must consist of visible ASCII characters"
                    + " (the value is not shown: it is a secret)");
        }
    }

    /** Whether {@code presented} is the token, compared in constant time. */
    public boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(digest, sha256(presented));
    }

    private static String generate() {
        byte[] random = new byte[RANDOM_BYTES];
        new SecureRandom().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private static void warnIfReadableByOthers(Path file) {
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (permissions.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
                log.warn("The API token file {} is accessible to other users; restrict it with 'chmod 600'", file);
            }
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system: nothing to check
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
