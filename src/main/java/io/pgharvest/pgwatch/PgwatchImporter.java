package io.pgharvest.pgwatch;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.model.connection.HostFileParameters;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.ItemOrigin;
import io.pgharvest.store.state.RejectedChangesException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Imports pgwatch configuration into the store. What pgharvest cannot run (pgwatch's special
 * metrics, pooler-less version keys, metrics breaking a rule, preset entries naming undefined
 * metrics) is skipped with a notice ({@link ImportTriage}); the rest is all or nothing: reading
 * and validation problems of every item are reported together, and only an import without any
 * is written.
 *
 * <p>Environment references in the files are resolved through Spring's {@link Environment}: OS
 * environment variables, and equally named system or application properties (e.g. a Kubernetes
 * secret mounted with {@code spring.config.import=configtree:}).
 */
@Component
public class PgwatchImporter {

    private final ConfigStore store;
    private final PgwatchImportReader reader;

    PgwatchImporter(ConfigStore store, Environment environment) {
        this.store = store;
        this.reader = new PgwatchImportReader(environment::getProperty);
    }

    /**
     * Imports YAML documents (a request body).
     *
     * @throws io.pgharvest.pgwatch.format.ConfigFileException when the YAML does not parse
     * @throws ImportRejectedException when an item is invalid, or there is nothing to import
     */
    public ImportReport importYaml(byte[] content, boolean dryRun, boolean keepBuiltIns) {
        PgwatchImport read = reader.read(content, "request body");
        return apply("the request body", read, hostFileProblems(read), dryRun, keepBuiltIns);
    }

    /**
     * Imports a pgwatch configuration database (start-up); same contract as {@link #importYaml}.
     *
     * @param property the property naming {@code url}, for errors
     */
    public ImportReport importConfigDatabase(String property, String url, boolean keepBuiltIns) {
        var database = PgwatchConfigDatabase.parse(property, url);
        byte[] document = PgwatchConfigDatabase.read(property, database);
        String what = property + " (" + database.masked() + ")";
        return apply(what, reader.read(document, what), List.of(), false, keepBuiltIns);
    }

    /** Imports files or folders (start-up); same contract as {@link #importYaml}. */
    public ImportReport importFiles(List<Path> filesOrFolders, boolean keepBuiltIns) {
        return importRead(filesOrFolders.toString(), readFiles(filesOrFolders), keepBuiltIns);
    }

    /**
     * Reads and checks files or folders without changing anything: the first half of
     * {@link #importFiles}, for a caller that reads ahead ({@link StartupImport}).
     *
     * @throws io.pgharvest.pgwatch.format.ConfigFileException when a file does not parse
     */
    public PgwatchImport readFiles(List<Path> filesOrFolders) {
        return reader.read(filesOrFolders);
    }

    /** Imports what {@link #readFiles} read; same contract as {@link #importYaml}. */
    public ImportReport importRead(String what, PgwatchImport read, boolean keepBuiltIns) {
        return apply(what, read, List.of(), false, keepBuiltIns);
    }

    /**
     * The request body's sources whose connection names a file on pgharvest's host: refused, as on
     * create (start-up imports are the operator's own files and may use them).
     */
    private static List<FieldProblem> hostFileProblems(PgwatchImport read) {
        var problems = new ArrayList<FieldProblem>();
        for (Source source : read.changes().sources()) {
            source.connection().parsed().flatMap(HostFileParameters::refusal).ifPresent(refusal -> problems.add(
                    new FieldProblem(PgwatchImportReader.pgwatchField("sources[" + source.name() + "].connStr"),
                            refusal)));
        }
        return problems;
    }

    private ImportReport apply(String what, PgwatchImport file, List<FieldProblem> refused, boolean dryRun,
            boolean keepBuiltIns) {
        PgwatchImport read = ImportTriage.triage(file, store.snapshot().metrics().keySet());
        var notices = new ArrayList<>(read.notices());
        ConfigChanges changes = keepBuiltIns ? withoutBuiltIns(read.changes(), notices) : read.changes();
        var problems = new ArrayList<>(read.problems());
        problems.addAll(refused);
        if (read.changes().isEmpty()) {
            problems.add(new FieldProblem("body", "holds no sources, metrics or presets; expected pgwatch's"
                    + " sources.yaml (a list) or metrics.yaml (a map with metrics and presets)"));
        }
        if (!problems.isEmpty()) {
            if (problems.size() == refused.size()) {
                // Only host files refused: the store's own problems of the items go in the same answer.
                problems.addAll(storeProblems(changes));
            }
            throw new ImportRejectedException(what, problems, notices);
        }
        try {
            return ImportReport.of(store.putAll(changes, dryRun), notices);
        } catch (RejectedChangesException e) {
            throw new ImportRejectedException(what, translated(e), notices);
        }
    }

    /** What the store finds wrong with {@code changes} (tried as a dry run), in pgwatch's spelling. */
    private List<FieldProblem> storeProblems(ConfigChanges changes) {
        try {
            store.putAll(changes, true);
            return List.of();
        } catch (RejectedChangesException e) {
            return translated(e);
        }
    }

    private static List<FieldProblem> translated(RejectedChangesException e) {
        return e.problems().stream()
                .map(p -> new FieldProblem(PgwatchImportReader.pgwatchField(p.field()), p.message()))
                .toList();
    }

    private ConfigChanges withoutBuiltIns(ConfigChanges changes, List<ImportNotice> notices) {
        var metrics = new ArrayList<MetricDefinition>();
        for (MetricDefinition metric : changes.metrics()) {
            if (isBuiltIn(StoreTable.METRICS, metric.name())) {
                notices.add(new ImportNotice("keepBuiltIns", "metrics[" + metric.name() + "]",
                        "built in: the built-in definition is kept and this one is not imported"));
            } else {
                metrics.add(metric);
            }
        }
        var presets = new ArrayList<Preset>();
        for (Preset preset : changes.presets()) {
            if (isBuiltIn(StoreTable.PRESETS, preset.name())) {
                notices.add(new ImportNotice("keepBuiltIns", "presets[" + preset.name() + "]",
                        "built in: the built-in definition is kept and this one is not imported"));
            } else {
                presets.add(preset);
            }
        }
        return new ConfigChanges(changes.sources(), metrics, presets);
    }

    private boolean isBuiltIn(StoreTable table, String name) {
        return store.origin(table, name).map(ItemOrigin::builtIn).orElse(false);
    }
}
