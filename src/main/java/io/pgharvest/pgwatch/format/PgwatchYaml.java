package io.pgharvest.pgwatch.format;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pgharvest.model.Source;
import io.pgharvest.store.StoreIndexFile;
import io.pgharvest.support.JacksonPaths;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.cfg.MapperBuilder;
import tools.jackson.databind.deser.DeserializationProblemHandler;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * Reads and writes the store's files in pgwatch's YAML formats ({@code sources.yaml},
 * {@code metrics.yaml}) and pgharvest's own {@code store-index.yaml}. Parse failures become
 * {@link ConfigFileException}s that name the file, line and column.
 */
public final class PgwatchYaml {

    private static final TypeReference<List<SourceEntry>> SOURCE_LIST = new TypeReference<>() {
    };
    private static final String HEADER = """
            # Written by pgharvest, in pgwatch's format. Edit it only while pgharvest is stopped:
            # changes made through the admin API replace this file.
            """;

    private final YAMLMapper mapper = itemForm(YAMLMapper.builder())
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
            .enable(YAMLWriteFeature.LITERAL_BLOCK_STYLE)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /**
     * Fingerprints take the items' content as JSON rather than YAML: the same properties, names and
     * inclusion ({@link #itemForm}), but several times faster to write (start-up and an import
     * fingerprint every item).
     */
    private final JsonMapper fingerprintMapper = itemForm(JsonMapper.builder()).build();

    /** How an item's properties are named and which are left out, in the files and in fingerprints alike. */
    private static <B extends MapperBuilder<?, B>> B itemForm(B builder) {
        return builder.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_EMPTY));
    }

    /** The sources of a {@code sources.yaml}; a missing or empty file holds none. */
    public List<Source> readSources(Path file) {
        List<SourceEntry> entries = read(file, SOURCE_LIST);
        if (entries == null) {
            return List.of();
        }
        int empty = entries.indexOf(null);
        if (empty >= 0) {
            throw new ConfigFileException(file, 0, 0, "[" + empty + "]: the list item is empty", null);
        }
        var sources = new ArrayList<Source>();
        for (int i = 0; i < entries.size(); i++) {
            try {
                sources.add(entries.get(i).toSource());
            } catch (IllegalArgumentException e) {
                throw new ConfigFileException(file, lineOf(file, "0|[" + i + "].kind"), 0,
                        "[" + i + "].kind: " + e.getMessage(), e);
            }
        }
        return sources;
    }

    /** The line of a property (key as in {@link #propertyLines}), 0 when the file cannot tell. */
    private int lineOf(Path file, String key) {
        try {
            return propertyLines(Files.readAllBytes(file), file).getOrDefault(key, 0);
        } catch (IOException | ConfigFileException e) {
            return 0;
        }
    }

    /** The metrics and presets of a {@code metrics.yaml}; a missing or empty file holds none. */
    public MetricsFile readMetrics(Path file) {
        MetricsFile content = read(file, new TypeReference<MetricsFile>() {
        });
        return content == null ? new MetricsFile(null, null) : content;
    }

    /** The metrics file shipped in the jar; {@code name} is how errors refer to it. */
    public MetricsFile readMetrics(InputStream in, Path name) throws IOException {
        MetricsFile content = parse(in.readAllBytes(), name, new TypeReference<MetricsFile>() {
        });
        return content == null ? new MetricsFile(null, null) : content;
    }

    /**
     * One root value of an imported YAML stream: a {@code sources.yaml} list, or a map holding any
     * of {@code metrics}, {@code presets} (the {@code metrics.yaml} format) and {@code sources}.
     */
    public record ImportDocument(List<SourceEntry> sources, MetricsFile metrics, int line, List<Integer> sourceLines) {
    }

    /** The map form of an imported document. */
    record ImportMap(List<SourceEntry> sources, Map<String, MetricEntry> metrics, Map<String, PresetEntry> presets) {
    }

    /** Told about each property of an imported document that the target type does not have. */
    public interface UnknownProperties {

        /**
         * @param path where the property is, e.g. {@code [2].host_config} or {@code metrics.db_stats.foo}
         * @param line 1-based line of the property in the document, 0 when unknown
         * @param inSource whether the property belongs to a source (an item of a sources list)
         */
        void found(String path, int line, boolean inSource);
    }

    /**
     * Reads every YAML document of {@code content} (documents separated by {@code ---}) for an
     * import. Unknown properties are reported to {@code unknown} and skipped instead of being
     * dropped silently; intervals must be whole numbers (a fraction is an error, not truncated).
     *
     * @throws ConfigFileException naming {@code origin}, line and column when a document does not parse
     */
    public List<ImportDocument> readImport(byte[] content, Path origin, UnknownProperties unknown) {
        var documents = new ArrayList<ImportDocument>();
        // Every property's line takes a second parse of the whole file: only done when a property
        // is unknown or a map document lists sources (it was a fifth of a 300-source import).
        var lines = new PropertyLines(content, origin);
        try (JsonParser parser = mapper.createParser(content)) {
            JsonToken token;
            int document = 0;
            while ((token = parser.nextToken()) != null) {
                int line = Math.max(parser.currentTokenLocation().getLineNr(), 0);
                int number = document++;
                var handler = new UnknownPropertyHandler(number, lines, unknown);
                if (token == JsonToken.START_ARRAY) {
                    var sources = new ArrayList<SourceEntry>();
                    var sourceLines = new ArrayList<Integer>();
                    ObjectReader item = importReader(new TypeReference<SourceEntry>() {
                    }, handler);
                    while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                        // The item's first line: its name's in the usual layout.
                        sourceLines.add(Math.max(parser.currentTokenLocation().getLineNr(), 0));
                        sources.add(token == JsonToken.VALUE_NULL ? null : item.readValue(parser));
                    }
                    checkNoEmptyItem(sources, "", origin, line);
                    documents.add(new ImportDocument(sources, new MetricsFile(null, null), line, sourceLines));
                } else if (token == JsonToken.START_OBJECT) {
                    ImportMap map = importReader(new TypeReference<ImportMap>() {
                    }, handler).readValue(parser);
                    List<SourceEntry> sources = map.sources() == null ? List.of() : map.sources();
                    checkNoEmptyItem(sources, "sources", origin, line);
                    documents.add(new ImportDocument(sources, new MetricsFile(map.metrics(), map.presets()), line,
                            sources.isEmpty() ? List.of()
                                    : itemLines(lines.all(), number, "sources", sources.size(), line)));
                } else if (token != JsonToken.VALUE_NULL) {
                    throw new ConfigFileException(origin, line, 0, "expected a list of sources (sources.yaml) or a"
                            + " map with metrics and presets (metrics.yaml), found " + YamlWording.of(token), null);
                }
            }
        } catch (JacksonException e) {
            throw translate(origin, e);
        }
        return documents;
    }

    /** {@link #propertyLines} of one content, parsed when first asked for. */
    private final class PropertyLines {
        private final byte[] content;
        private final Path origin;
        private Map<String, Integer> lines;

        PropertyLines(byte[] content, Path origin) {
            this.content = content;
            this.origin = origin;
        }

        Map<String, Integer> all() {
            if (lines == null) {
                lines = propertyLines(content, origin);
            }
            return lines;
        }
    }

    /** The line of each source's name (its first line in the usual layout), else of the document. */
    private static List<Integer> itemLines(Map<String, Integer> lines, int document, String prefix, int count,
            int fallback) {
        var result = new ArrayList<Integer>();
        for (int i = 0; i < count; i++) {
            result.add(lines.getOrDefault(document + "|" + prefix + "[" + i + "].name", fallback));
        }
        return result;
    }

    private static void checkNoEmptyItem(List<SourceEntry> sources, String prefix, Path origin, int line) {
        for (int i = 0; i < sources.size(); i++) {
            if (sources.get(i) == null) {
                throw new ConfigFileException(origin, line, 0, prefix + "[" + i + "]: the list item is empty", null);
            }
        }
    }

    private ObjectReader importReader(TypeReference<?> type, DeserializationProblemHandler handler) {
        // FAIL_ON_TRAILING_TOKENS off: the next YAML document follows the value just read.
        ObjectReader reader = mapper.readerFor(type).without(DeserializationFeature.ACCEPT_FLOAT_AS_INT,
                DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        return reader.with(reader.getConfig().withHandler(handler));
    }

    /**
     * The line of every property, keyed by document number and path. Needed because records are
     * built through their constructor: Jackson buffers the properties it cannot place and hands
     * them to the problem handler afterwards, without their location.
     */
    private Map<String, Integer> propertyLines(byte[] content, Path origin) {
        var lines = new HashMap<String, Integer>();
        try (JsonParser parser = mapper.createParser(content)) {
            int document = -1;
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                TokenStreamContext context = parser.streamReadContext();
                boolean startsDocument = token.isStructStart()
                        ? context.getParent() != null && context.getParent().inRoot()
                        : context.inRoot() && token.isScalarValue();
                if (startsDocument) {
                    document++;
                }
                if (token == JsonToken.PROPERTY_NAME) {
                    lines.put(document + "|" + path(parser.streamReadContext()),
                            Math.max(parser.currentTokenLocation().getLineNr(), 0));
                }
            }
        } catch (JacksonException e) {
            throw translate(origin, e);
        }
        return lines;
    }

    /** E.g. {@code [2].host_config}: array indexes in brackets, property names joined by dots. */
    private static String path(TokenStreamContext context) {
        Deque<String> parts = new ArrayDeque<>();
        for (TokenStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                parts.push("[" + c.getCurrentIndex() + "]");
            } else if (c.currentName() != null) {
                parts.push("." + c.currentName());
            }
        }
        String path = String.join("", parts);
        return path.startsWith(".") ? path.substring(1) : path;
    }

    /** Reports unknown properties with the line {@link #propertyLines} recorded, and skips them. */
    private static final class UnknownPropertyHandler extends DeserializationProblemHandler {

        private final int document;
        private final PropertyLines lines;
        private final UnknownProperties unknown;

        UnknownPropertyHandler(int document, PropertyLines lines, UnknownProperties unknown) {
            this.document = document;
            this.lines = lines;
            this.unknown = unknown;
        }

        @Override
        public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser,
                ValueDeserializer<?> deserializer, Object beanOrClass, String propertyName) {
            // The context of the object that holds the property; depending on how Jackson buffered
            // the property, the parser may already stand inside the property's own value.
            TokenStreamContext where = parser.streamReadContext();
            while (where != null && !(where.inObject() && propertyName.equals(where.currentName()))) {
                where = where.getParent();
            }
            // a buffered value's own context may repeat the property name of its parent
            while (where != null && where.getParent() != null && where.getParent().inObject()
                    && propertyName.equals(where.getParent().currentName())) {
                where = where.getParent();
            }
            String path = where != null ? path(where) : path(parser.streamReadContext()) + "." + propertyName;
            boolean inSource = beanOrClass == SourceEntry.class || beanOrClass instanceof SourceEntry;
            unknown.found(path, lines.all().getOrDefault(document + "|" + path, 0), inSource);
            parser.skipChildren();
            return true;
        }
    }

    public StoreIndexFile readIndex(Path file) {
        return read(file, new TypeReference<StoreIndexFile>() {
        });
    }

    public byte[] write(Collection<Source> sources) {
        return withHeader(mapper.writeValueAsBytes(sources.stream().map(SourceEntry::of).toList()));
    }

    public byte[] write(MetricsFile metrics) {
        return withHeader(mapper.writeValueAsBytes(metrics));
    }

    public byte[] write(StoreIndexFile index) {
        return mapper.writeValueAsBytes(index);
    }

    /**
     * A short digest of an item's file form, so that start-up can tell which items changed while
     * pgharvest was not running. Covers the name too; for sources it covers the password, which
     * is stored in clear next to it anyway. (Until 2026-11 the digest was of the YAML text: a store
     * written before gives each item one new modify index at its first start with this.)
     */
    public String fingerprint(String name, Object entry) {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            digest.update(name.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(fingerprintMapper.writeValueAsBytes(entry));
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
        // Jackson's own message names Java types and tokens; the user gets the problem in YAML's terms.
        String problem = YamlWording.problem(e);
        // The YAML parser's own message quotes the offending line, which may hold a password.
        if (e.getCause() instanceof MarkedYamlEngineException yaml) {
            problem = "not valid YAML: "
                    + (yaml.getContext() == null ? yaml.getProblem() : yaml.getContext() + ", " + yaml.getProblem());
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
