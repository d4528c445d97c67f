package io.pgharvest.alert.store;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every alert's state in the data directory, one file per source under {@code alert-state/}
 * (the source's name percent-encoded, {@code .json}), replaced atomically. One file per source
 * because a state is written each time one of the source's alerts starts, fires or ends: a fleet of
 * 1,000 sources in trouble would otherwise rewrite every source's states at each of those. The
 * single {@code alert-state.json} of earlier versions is read once and split.
 */
final class StateFiles {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<LinkedHashMap<String, AlertState>> STATES = new TypeReference<>() { };

    private final Path dir;
    private final Path legacyFile;

    StateFiles(Path dataDirectory) {
        this.dir = dataDirectory.resolve("alert-state");
        this.legacyFile = dataDirectory.resolve("alert-state.json");
    }

    /** Every source's states by fingerprint, as last written. */
    Map<String, Map<String, AlertState>> readAll() throws IOException {
        AtomicFiles.createDirectories(dir);
        var states = new HashMap<String, Map<String, AlertState>>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json")).toList()) {
                String name = file.getFileName().toString();
                states.put(URLDecoder.decode(name.substring(0, name.length() - 5), StandardCharsets.UTF_8),
                        JSON.readValue(file.toFile(), STATES));
            }
        } catch (JacksonException e) {
            throw new IOException(e.getMessage(), e);
        }
        if (Files.exists(legacyFile)) {
            HashMap<String, LinkedHashMap<String, AlertState>> legacy = JSON.readValue(legacyFile.toFile(),
                    new TypeReference<HashMap<String, LinkedHashMap<String, AlertState>>>() { });
            for (var entry : legacy.entrySet()) {
                write(entry.getKey(), entry.getValue().values());
                states.put(entry.getKey(), entry.getValue());
            }
            Files.delete(legacyFile); // only once every source's file is written
        }
        return states;
    }

    /** Replaces the source's file by {@code states} (removes it when there are none). */
    void write(String source, Collection<AlertState> states) {
        Path file = dir.resolve(URLEncoder.encode(source, StandardCharsets.UTF_8) + ".json");
        try {
            if (states.isEmpty()) {
                Files.deleteIfExists(file);
                return;
            }
            var byFingerprint = new LinkedHashMap<String, AlertState>();
            states.forEach(state -> byFingerprint.put(state.fingerprint(), state));
            AtomicFiles.write(file, JSON.writeValueAsBytes(byFingerprint));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + "; nothing was changed: " + e.getMessage(), e);
        }
    }
}
