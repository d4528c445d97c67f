package io.pgharvest.store.file;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricRules;
import io.pgharvest.model.PresetRules;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceRules;
import io.pgharvest.model.StoreTable;
import io.pgharvest.pgwatch.format.ConfigFileException;
import io.pgharvest.pgwatch.format.MetricsFile;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import io.pgharvest.store.StoreIndexFile.ItemStamp;
import io.pgharvest.store.StoreIndexFile;
import io.pgharvest.store.state.BuiltInCatalog;
import io.pgharvest.store.state.ItemFingerprints;
import io.pgharvest.store.state.StoreState;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the store's first state from the data directory at start-up.
 *
 * <p>Unparseable files stop start-up ({@link ConfigFileException}) and are left untouched.
 * Items that parse but break a validation rule (say, a preset naming a metric that no longer
 * exists) are loaded and logged as warnings: refusing to start over them would stop collection
 * of every other source.
 *
 * <p>Indexes never go backwards: items whose fingerprint differs from the one recorded in
 * {@code store-index.yaml} (edited by hand, changed by a new built-in catalog, or written by a
 * write that crashed before completing) get the recorded index plus one, which is above anything
 * a client can have seen, because the index file is written before the data files.
 */
final class StoreLoader {

    private static final Logger log = LoggerFactory.getLogger(StoreLoader.class);

    private final PgwatchYaml yaml;
    private final ItemFingerprints fingerprints;

    StoreLoader(PgwatchYaml yaml) {
        this.yaml = yaml;
        this.fingerprints = new ItemFingerprints(yaml);
    }

    StoreState load(StoreFiles files) {
        BuiltInCatalog builtIns = BuiltInCatalog.load(yaml);
        Map<String, Source> sources = byName(files.sources(), yaml.readSources(files.sources()));
        MetricsFile metrics = yaml.readMetrics(files.metrics());
        StoreIndexFile recorded = yaml.readIndex(files.index());
        StoreState unstamped = StoreState.of(0, builtIns, sources, metrics.definitions(), metrics.presetDefinitions(),
                Map.of(), Map.of());
        StoreState state = fingerprints.stamp(unstamped, recorded);
        if (recorded == null || state.index() != recorded.index()) {
            writeIndex(files.index(), state);
        }
        warnAboutInvalidItems(state, files);
        log.info("Configuration store in {}: {} sources, {} metrics, {} presets, index {}",
                files.sources().getParent(), sources.size(), state.snapshot().metrics().size(),
                state.snapshot().presets().size(), state.index());
        return state;
    }

    private void writeIndex(Path file, StoreState state) {
        try {
            AtomicFiles.write(file, yaml.write(state.indexFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private void warnAboutInvalidItems(StoreState state, StoreFiles files) {
        ConfigSnapshot snapshot = state.snapshot();
        warn(files.sources(), "source", state.sources(), source -> SourceRules.check(source, snapshot));
        warn(files.metrics(), "metric", state.userMetrics(), MetricRules::check);
        warn(files.metrics(), "preset", state.userPresets(), preset -> PresetRules.check(preset, snapshot));
    }

    private static <T> void warn(Path file, String noun, Map<String, T> items, Function<T, List<FieldProblem>> check) {
        items.forEach((name, item) -> {
            for (FieldProblem problem : check.apply(item)) {
                log.warn("{}: {} '{}': {}: {}", file, noun, name, problem.field(), problem.message());
            }
        });
    }

    private static Map<String, Source> byName(Path file, List<Source> sources) {
        var byName = new LinkedHashMap<String, Source>();
        for (int i = 0; i < sources.size(); i++) {
            Source source = sources.get(i);
            if (byName.putIfAbsent(source.name(), source) != null) {
                throw new ConfigFileException(file, 0, 0, "[" + i + "]: source '" + source.name()
                        + "' is listed more than once", null);
            }
        }
        return byName;
    }
}
