package io.pgharvest.pgwatch;

import io.pgharvest.fanout.FanOutRewrite;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.sql.ExtensionNames;
import io.pgharvest.pgwatch.format.ConfigFileException;
import io.pgharvest.pgwatch.format.EnvironmentReferences;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import io.pgharvest.pgwatch.format.SourceEntry;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.ConfigStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Reads pgwatch's {@code sources.yaml} and {@code metrics.yaml} (a file, a folder of
 * {@code .yaml}/{@code .yml} files, or a request body of one or more YAML documents) into items
 * for {@link ConfigStore#putAll}. docs/pgwatch-import.md describes the mapping.
 *
 * <ul>
 *   <li>Unknown fields, and pgwatch fields pgharvest does not support, become {@link ImportNotice}s
 *       with file and line: they are reported, not silently dropped.</li>
 *   <li>{@code $NAME} and {@code ${NAME}} in {@code conn_str} are replaced from the environment
 *       ({@code $$} is a literal {@code $}); like pgwatch, {@code name}, {@code include_pattern},
 *       {@code exclude_pattern}, {@code preset_metrics} and {@code preset_metrics_standby} are
 *       expanded when they start with {@code $}. A variable that is not set is a problem; for
 *       {@code conn_str} the message does not name it, since it may be part of a password.
 *       Only files read at start-up are expanded ({@link #read(List)}): content that arrives
 *       through the API ({@link #read(byte[], String)}) must not read pgharvest's environment,
 *       whose secrets the caller could then store and send to a server of its choice, so a
 *       reference there is a problem.</li>
 *   <li>As in pgwatch, a metric or preset defined in several files takes the last definition
 *       (files are read in path order); a source name given twice is a problem.</li>
 * </ul>
 */
public final class PgwatchImportReader {

    /** pgwatch source fields pgharvest knows but does not use, and why. */
    private static final Map<String, String> UNSUPPORTED_SOURCE_FIELDS = Map.of(
            "is_superuser", "not used: pgharvest never creates helper functions or extensions on monitored servers",
            "host_config", "not supported: pgwatch v1's host settings (of a cluster and of logs); a source that"
                    + " stands for a cluster names it in conn_str, and server_log_event_counts reads the log of"
                    + " servers on this machine");
    /** pgharvest's API field names as they are spelled in pgwatch's files. */
    private static final Map<String, String> PGWATCH_FIELDS = Map.ofEntries(
            Map.entry("connStr", "conn_str"),
            Map.entry("preset", "preset_metrics"),
            Map.entry("metrics", "custom_metrics"),
            Map.entry("standbyPreset", "preset_metrics_standby"),
            Map.entry("standbyMetrics", "custom_metrics_standby"),
            Map.entry("tags", "custom_tags"),
            Map.entry("includePattern", "include_pattern"),
            Map.entry("excludePattern", "exclude_pattern"),
            Map.entry("storageName", "storage_name"),
            Map.entry("nodeStatus", "node_status"),
            Map.entry("statementTimeoutSeconds", "statement_timeout_seconds"));

    private final PgwatchYaml yaml = new PgwatchYaml();
    private final EnvironmentReferences environment;
    /** Finds references without resolving any: every name is "not set". */
    private final EnvironmentReferences noEnvironment = new EnvironmentReferences(name -> null);

    /** @param environment looks up an environment variable; null when it is not set */
    public PgwatchImportReader(UnaryOperator<String> environment) {
        this.environment = new EnvironmentReferences(environment);
    }

    /**
     * Reads YAML documents given directly, e.g. a request body. Each document is a sources list,
     * a metrics file (metrics and presets), or a map with any of sources, metrics and presets.
     *
     * @param origin how notices and errors name the content, e.g. "request body"
     * @throws ConfigFileException when a document does not parse
     */
    public PgwatchImport read(byte[] content, String origin) {
        var result = new Accumulator(false);
        result.add(content, Path.of(origin));
        return result.finish();
    }

    /**
     * Reads files and folders (folders recursively, {@code .yaml} and {@code .yml} files in path
     * order), as pgwatch reads its {@code --sources} and {@code --metrics} locations.
     *
     * @throws ConfigFileException when a file is missing, unreadable or does not parse
     */
    public PgwatchImport read(List<Path> filesOrFolders) {
        var result = new Accumulator(true);
        for (Path location : filesOrFolders) {
            for (Path file : yamlFiles(location)) {
                try {
                    result.add(Files.readAllBytes(file), file);
                } catch (IOException e) {
                    throw new ConfigFileException(file, 0, 0, "cannot read the file: " + e, e);
                }
            }
        }
        return result.finish();
    }

    /**
     * A problem field of the store ({@code sources[db1].connStr}) in pgwatch's spelling
     * ({@code sources[db1].conn_str}), so that it matches the imported file.
     */
    public static String pgwatchField(String field) {
        int start = field.indexOf("].");
        if (start < 0) {
            return field;
        }
        String head = field.substring(0, start + 2);
        String rest = field.substring(start + 2);
        int end = rest.indexOf('.');
        String first = end < 0 ? rest : rest.substring(0, end);
        String translated = field.startsWith("sources[") || !first.equals("metrics")
                ? PGWATCH_FIELDS.getOrDefault(first, first) : first;
        return head + translated + (end < 0 ? "" : rest.substring(end));
    }

    private static List<Path> yamlFiles(Path location) {
        if (!Files.exists(location)) {
            throw new ConfigFileException(location, 0, 0, "no such file or folder",
                    new NoSuchFileException(location.toString()));
        }
        if (!Files.isDirectory(location)) {
            return List.of(location);
        }
        try (Stream<Path> tree = Files.walk(location)) {
            return tree.filter(Files::isRegularFile)
                    .filter(file -> {
                        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
                        return name.endsWith(".yaml") || name.endsWith(".yml");
                    })
                    .sorted()
                    .toList();
        } catch (IOException | UncheckedIOException e) {
            throw new ConfigFileException(location, 0, 0, "cannot list the folder: " + e, e);
        }
    }

    /** Collects the items of several documents and files, with the notices and problems. */
    private final class Accumulator {

        private final Map<String, Source> sources = new LinkedHashMap<>();
        private final Map<String, MetricDefinition> metrics = new LinkedHashMap<>();
        private final Map<String, Preset> presets = new LinkedHashMap<>();
        private final Map<String, String> definedIn = new LinkedHashMap<>();
        private final List<ImportNotice> notices = new ArrayList<>();
        private final List<FieldProblem> problems = new ArrayList<>();
        private final boolean startupFiles;
        private final EnvironmentReferences references;

        Accumulator(boolean startupFiles) {
            this.startupFiles = startupFiles;
            this.references = startupFiles ? environment : noEnvironment;
        }

        void add(byte[] content, Path origin) {
            PgwatchYaml.UnknownProperties unknown = (path, line, inSource) -> {
                String property = path.substring(path.lastIndexOf('.') + 1);
                String reason = inSource ? UNSUPPORTED_SOURCE_FIELDS.get(property) : null;
                notices.add(new ImportNotice(origin + " line " + line, path,
                        reason != null ? reason + "; ignored" : "unknown field; ignored"));
            };
            for (PgwatchYaml.ImportDocument document : yaml.readImport(content, origin, unknown)) {
                String where = origin + " line " + document.line();
                for (int i = 0; i < document.sources().size(); i++) {
                    addSource(document.sources().get(i), origin + " line " + document.sourceLines().get(i),
                            "[" + i + "]");
                }
                // Where pgwatch's query rewrites mechanically into an instance-wide one, the
                // metric fans out on instances with several databases (docs/pgwatch-import.md).
                // The report says which metrics fan out and why the others that name current_database() do not.
                document.metrics().definitions().values().forEach(metric -> {
                    FanOutRewrite.Derivation fanOut = FanOutRewrite.derive(metric);
                    fanOut.note().ifPresent(note -> notices.add(new ImportNotice(where,
                            "metrics." + metric.name() + ".sqls", note)));
                    extensionObjectsNote(metric).ifPresent(note -> notices.add(new ImportNotice(where,
                            "metrics." + metric.name() + ".sqls", note)));
                    addDefinition(metrics, "metrics", metric.name(), fanOut.metric(), where);
                });
                document.metrics().presetDefinitions().values().forEach(preset ->
                        addDefinition(presets, "presets", preset.name(), preset, where));
            }
        }

        /**
         * pgwatch names extensions' objects without a schema, which monitoring sessions do not
         * search (they search pg_catalog only): the engine qualifies them per database with the
         * schema its catalog records (model.sql.ExtensionNames); the report says which metrics it
         * adapts that way.
         */
        private static Optional<String> extensionObjectsNote(MetricDefinition metric) {
            var named = new TreeMap<String, TreeSet<String>>();
            for (String sql : metric.sqls().values()) {
                ExtensionNames.KNOWN.namedIn(sql).forEach(m ->
                        named.computeIfAbsent(m.schema(), k -> new TreeSet<>()).add(m.name()));
            }
            if (named.isEmpty()) {
                return Optional.empty();
            }
            var parts = new ArrayList<String>();
            named.forEach((extension, objects) -> parts.add(String.join(", ", objects) + " (extension " + extension + ")"));
            return Optional.of("names " + String.join("; ", parts) + " without a schema: each source reads them in the"
                    + " schema its database's pg_extension records, and the metric fails there with \"does not exist\""
                    + " where the extension is not installed");
        }

        private void addSource(SourceEntry entry, String where, String path) {
            String kind = expandWhole(entry.kind(), path + ".kind");
            try {
                SourceKind.fromLabel(kind);
            } catch (IllegalArgumentException e) {
                // pgwatch's own sample holds kinds pgharvest does not collect (prometheus, patroni):
                // the rest of the file still imports.
                notices.add(new ImportNotice(where, path, "skipped: source " + entry.name() + " is of kind '" + kind
                        + "', which pgharvest does not collect (" + e.getMessage() + ")"));
                return;
            }
            Source source = expand(entry.withKind(kind).toSource(), path);
            if (entry.isEnabled() == null) {
                notices.add(new ImportNotice(where, path + ".is_enabled", "missing: imported as enabled (pgwatch"
                        + " would treat the source as disabled); add is_enabled: false to keep it off"));
            }
            definedIn.putIfAbsent("sources[" + source.name() + "]", where);
            if (sources.putIfAbsent(source.name(), source) != null) {
                problems.add(new FieldProblem("sources[" + source.name() + "]", "is listed more than once"));
            }
        }

        private <T> void addDefinition(Map<String, T> items, String kind, String name, T item, String where) {
            String key = kind + "[" + name + "]";
            if (items.put(name, item) != null) {
                notices.add(new ImportNotice(where, key, "defined again; this later definition replaces the one in "
                        + definedIn.get(key)));
            }
            definedIn.put(key, where);
        }

        private Source expand(Source source, String path) {
            String name = expandWhole(source.name(), path + ".name");
            var connStr = references.expand(source.connStr());
            if (!connStr.missing().isEmpty() && !startupFiles) {
                problems.add(new FieldProblem("sources[" + name + "].conn_str", notExpandedHere()));
            } else if (!connStr.missing().isEmpty()) {
                problems.add(new FieldProblem("sources[" + name + "].conn_str", "refers to "
                        + connStr.missing().size() + " environment variable(s) that are not set (the names are not"
                        + " shown: they may be part of a password); write $$ for a literal $"));
            }
            return new Source(name, connStr.value(), source.kind(), source.group(), source.enabled(),
                    expandWhole(source.preset(), path + ".preset_metrics"), source.metrics(),
                    expandWhole(source.standbyPreset(), path + ".preset_metrics_standby"), source.standbyMetrics(),
                    source.tags(), source.onlyIfPrimary(),
                    expandWhole(source.includePattern(), path + ".include_pattern"),
                    expandWhole(source.excludePattern(), path + ".exclude_pattern"), source.keepQueryLiterals(),
                    source.keepCommandSettings());
        }

        /** pgwatch expands these fields only when the whole value starts with $. */
        private String expandWhole(String value, String field) {
            if (value == null || !value.startsWith("$")) {
                return value;
            }
            var expansion = references.expand(value);
            if (!expansion.missing().isEmpty() && !startupFiles) {
                problems.add(new FieldProblem(field, notExpandedHere()));
                return expansion.value();
            }
            expansion.missing().forEach(name ->
                    problems.add(new FieldProblem(field, "environment variable " + name + " is not set")));
            return expansion.value();
        }

        private static String notExpandedHere() {
            return "refers to an environment variable ($NAME or ${NAME}): they are expanded only in files imported"
                    + " at start-up (pgharvest.import.*), never through the API; write the value, or $$ for a literal $";
        }

        PgwatchImport finish() {
            var changes = new ConfigChanges(List.copyOf(sources.values()), List.copyOf(metrics.values()),
                    List.copyOf(presets.values()));
            return new PgwatchImport(changes, notices, problems, definedIn);
        }
    }
}
