package io.pgharvest.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pgharvest.config.JacksonPaths;
import io.pgharvest.source.Source;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * Reads and writes the store's files in pgwatch's YAML formats ({@code sources.yaml},
 * {@code metrics.yaml}) and pgharvest's own {@code store-index.yaml}. Parse failures become
 * {@link ConfigFileException}s that name the file, line and column.
 */
final class PgwatchYaml {

    private static final TypeReference<List<SourceEntry>> SOURCE_LIST = new TypeReference<>() {
    };
    private static final String HEADER = """
            # Written by pgharvest, in pgwatch's format. Edit it only while pgharvest is stopped:
            # changes made through the admin API replace this file.
            """;

    private final YAMLMapper mapper = YAMLMapper.builder()
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
            .enable(YAMLWriteFeature.LITERAL_BLOCK_STYLE)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_EMPTY))
            .build();

    /** The sources of a {@code sources.yaml}; a missing or empty file holds none. */
    List<Source> readSources(Path file) {
        List<SourceEntry> entries = read(file, SOURCE_LIST);
        if (entries == null) {
            return List.of();
        }
        int empty = entries.indexOf(null);
        if (empty >= 0) {
            throw new ConfigFileException(file, 0, 0, "[" + empty + "]: the list item is empty", null);
        }
        return entries.stream().map(SourceEntry::toSource).toList();
    }

    /** The metrics and presets of a {@code metrics.yaml}; a missing or empty file holds none. */
    MetricsFile readMetrics(Path file) {
        MetricsFile content = read(file, new TypeReference<MetricsFile>() {
        });
        return content == null ? new MetricsFile(null, null) : content;
    }

    /** The metrics file shipped in the jar; {@code name} is how errors refer to it. */
    MetricsFile readMetrics(InputStream in, Path name) throws IOException {
        MetricsFile content = parse(in.readAllBytes(), name, new TypeReference<MetricsFile>() {
        });
        return content == null ? new MetricsFile(null, null) : content;
    }

    StoreIndexFile readIndex(Path file) {
        return read(file, new TypeReference<StoreIndexFile>() {
        });
    }

    byte[] write(Collection<Source> sources) {
        return withHeader(mapper.writeValueAsBytes(sources.stream().map(SourceEntry::of).toList()));
    }

    byte[] write(MetricsFile metrics) {
        return withHeader(mapper.writeValueAsBytes(metrics));
    }

    byte[] write(StoreIndexFile index) {
        return mapper.writeValueAsBytes(index);
    }

    /**
     * A short digest of an item's file form, so that start-up can tell which items changed while
     * pgharvest was not running. Covers the name too; for sources it covers the password, which
     * is stored in clear next to it anyway.
     */
    String fingerprint(String name, Object entry) {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            digest.update(name.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(mapper.writeValueAsBytes(entry));
            return HexFormat.of().formatHex(digest.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private <T> T read(Path file, TypeReference<T> type) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new ConfigFileException(file, 0, 0, "cannot read the file: " + e, e);
        }
        return parse(content, file, type);
    }

    private <T> T parse(byte[] content, Path file, TypeReference<T> type) {
        try (JsonParser parser = mapper.createParser(content)) {
            if (parser.nextToken() == null) {
                return null;
            }
            return mapper.readValue(parser, type);
        } catch (JacksonException e) {
            throw translate(file, e);
        }
    }

    private static ConfigFileException translate(Path file, JacksonException e) {
        TokenStreamLocation location = e.getLocation();
        int line = location == null ? 0 : Math.max(location.getLineNr(), 0);
        int column = location == null ? 0 : Math.max(location.getColumnNr(), 0);
        String problem = e.getOriginalMessage();
        // The YAML parser's own message quotes the offending line, which may hold a password.
        if (e.getCause() instanceof MarkedYamlEngineException yaml) {
            problem = yaml.getContext() == null ? yaml.getProblem() : yaml.getContext() + ", " + yaml.getProblem();
        }
        String path = JacksonPaths.describe(e.getPath());
        return new ConfigFileException(file, line, column, path.isEmpty() ? problem : path + ": " + problem, e);
    }

    private static byte[] withHeader(byte[] yaml) {
        byte[] header = HEADER.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[header.length + yaml.length];
        System.arraycopy(header, 0, result, 0, header.length);
        System.arraycopy(yaml, 0, result, header.length, yaml.length);
        return result;
    }
}
