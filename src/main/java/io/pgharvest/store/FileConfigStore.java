package io.pgharvest.store;

import static io.pgharvest.store.StoreTable.METRICS;
import static io.pgharvest.store.StoreTable.PRESETS;
import static io.pgharvest.store.StoreTable.SOURCES;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.metric.MetricDefinition;
import io.pgharvest.metric.Preset;
import io.pgharvest.source.ConnectionString;
import io.pgharvest.source.InvalidConnectionStringException;
import io.pgharvest.source.Source;
import io.pgharvest.store.StoreIndexFile.ItemStamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The embedded configuration store: YAML files in the data directory ({@code sources.yaml},
 * {@code metrics.yaml}, {@code store-index.yaml}), all in memory as one immutable
 * {@link StoreState}.
 *
 * <p>A write holds {@link #writeLock} throughout: it validates against the current state,
 * writes the index file and then the data file (each atomically), and only then publishes the
 * new state and advances the notifiers. A refused write throws before touching anything; a
 * failed file write leaves the published state as it was (the index file may then be one step
 * ahead, which start-up tolerates). Readers never take the lock.
 */
@Component
class FileConfigStore implements ConfigStore {

    private static final Logger log = LoggerFactory.getLogger(FileConfigStore.class);

    private final StoreFiles files;
    private final PgwatchYaml yaml = new PgwatchYaml();
    private final ConfigValidator validator;
    private final ItemFingerprints fingerprints = new ItemFingerprints(yaml);
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<StoreTable, ChangeNotifier> tableChanges = new EnumMap<>(StoreTable.class);
    private final ChangeNotifier storeChanges;
    private volatile StoreState state;

    FileConfigStore(DataDirectory dataDirectory, ConfigValidator validator) {
        this.files = StoreFiles.in(dataDirectory.path());
        this.validator = validator;
        this.state = new StoreLoader(yaml, validator).load(files);
        this.storeChanges = new ChangeNotifier(state.index());
        for (StoreTable table : StoreTable.values()) {
            tableChanges.put(table, new ChangeNotifier(state.tableIndexes().get(table)));
        }
    }

    @Override
    public ConfigSnapshot snapshot() {
        return state.snapshot();
    }

    @Override
    public ChangeNotifier changes(StoreTable table) {
        return tableChanges.get(table);
    }

    @Override
    public ChangeNotifier changes() {
        return storeChanges;
    }

    @Override
    public Optional<ItemOrigin> origin(StoreTable table, String name) {
        return Optional.ofNullable(state.origin(table, name));
    }

    @Override
    public Stored<Source> createSource(Source source) {
        return write(SOURCES, source.name(), current -> {
            if (current.origin(SOURCES, source.name()) != null) {
                throw new DuplicateItemException(SOURCES, source.name(), false);
            }
            requireValid(SOURCES, source.name(), validator.checkSource(source, current.snapshot()));
            return source;
        });
    }

    @Override
    public Stored<Source> putSource(Source source) {
        return write(SOURCES, source.name(), current -> {
            Source resolved = keepStoredPassword(source, current.sources().get(source.name()));
            requireValid(SOURCES, source.name(), validator.checkSource(resolved, current.snapshot()));
            return resolved;
        });
    }

    @Override
    public long deleteSource(String name) {
        return remove(SOURCES, name, current -> {
            if (current.origin(SOURCES, name) == null) {
                throw new NoSuchItemException(SOURCES, name);
            }
        });
    }

    @Override
    public Stored<MetricDefinition> createMetric(MetricDefinition metric) {
        return write(METRICS, metric.name(), current -> {
            refuseDuplicate(current, METRICS, metric.name());
            requireValid(METRICS, metric.name(), validator.checkMetric(metric));
            return metric;
        });
    }

    @Override
    public Stored<MetricDefinition> putMetric(MetricDefinition metric) {
        return write(METRICS, metric.name(), current -> {
            requireValid(METRICS, metric.name(), validator.checkMetric(metric));
            return metric;
        });
    }

    @Override
    public long deleteMetric(String name) {
        return remove(METRICS, name, current -> refuseDelete(current, METRICS, name,
                () -> ItemUsers.ofMetric(current.snapshot(), name)));
    }

    @Override
    public Stored<Preset> createPreset(Preset preset) {
        return write(PRESETS, preset.name(), current -> {
            refuseDuplicate(current, PRESETS, preset.name());
            requireValid(PRESETS, preset.name(), validator.checkPreset(preset, current.snapshot()));
            return preset;
        });
    }

    @Override
    public Stored<Preset> putPreset(Preset preset) {
        return write(PRESETS, preset.name(), current -> {
            requireValid(PRESETS, preset.name(), validator.checkPreset(preset, current.snapshot()));
            return preset;
        });
    }

    @Override
    public long deletePreset(String name) {
        return remove(PRESETS, name, current -> refuseDelete(current, PRESETS, name,
                () -> ItemUsers.ofPreset(current.snapshot(), name)));
    }

    /**
     * Sets the operator's item {@code name} to what {@code decide} returns; {@code decide} runs
     * under the write lock and throws to refuse. Writing an item equal to the stored one is a
     * no-op that keeps its modify index and wakes nobody.
     */
    private <T> Stored<T> write(StoreTable table, String name, Function<StoreState, T> decide) {
        writeLock.lock();
        try {
            StoreState current = state;
            T item = decide.apply(current);
            ItemOrigin origin = current.origin(table, name);
            if (item.equals(userItem(current, table, name))) {
                return new Stored<>(item, current.snapshot().modifyIndex(table, name), false);
            }
            long index = current.index() + 1;
            var stamp = new ItemStamp(index, fingerprints.of(table, name, item));
            commit(current.with(table, name, item, stamp, index), table);
            log.info("{} '{}' {} (index {})", StoreException.noun(table), name,
                    origin == null ? "created" : origin == ItemOrigin.BUILT_IN ? "overridden" : "replaced", index);
            return new Stored<>(item, index, origin == null);
        } finally {
            writeLock.unlock();
        }
    }

    /** Removes the operator's item {@code name} after {@code check} (under the write lock) allowed it. */
    private long remove(StoreTable table, String name, Consumer<StoreState> check) {
        writeLock.lock();
        try {
            StoreState current = state;
            check.accept(current);
            long index = current.index() + 1;
            Object builtIn = builtInItem(current, table, name);
            ItemStamp stamp = builtIn == null ? null : new ItemStamp(index, fingerprints.of(table, name, builtIn));
            commit(current.with(table, name, null, stamp, index), table);
            log.info("{} '{}' {} (index {})", StoreException.noun(table), name,
                    builtIn == null ? "deleted" : "reverted to the built-in definition", index);
            return index;
        } finally {
            writeLock.unlock();
        }
    }

    private void commit(StoreState next, StoreTable table) {
        try {
            AtomicFiles.write(files.index(), yaml.write(next.indexFile()));
            byte[] content = table == SOURCES
                    ? yaml.write(next.sources().values())
                    : yaml.write(MetricsFile.of(next.userMetrics(), next.userPresets()));
            AtomicFiles.write(files.of(table), content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + files.of(table) + "; nothing was changed: "
                    + e.getMessage(), e);
        }
        state = next;
        tableChanges.get(table).advanceTo(next.index());
        storeChanges.advanceTo(next.index());
    }

    private static void refuseDuplicate(StoreState current, StoreTable table, String name) {
        ItemOrigin origin = current.origin(table, name);
        if (origin != null) {
            throw new DuplicateItemException(table, name, origin.builtIn());
        }
    }

    private static void refuseDelete(StoreState current, StoreTable table, String name,
            Supplier<Map<StoreTable, List<String>>> users) {
        ItemOrigin origin = current.origin(table, name);
        if (origin == null) {
            throw new NoSuchItemException(table, name);
        }
        if (origin == ItemOrigin.BUILT_IN) {
            throw new BuiltInItemException(table, name);
        }
        if (origin == ItemOrigin.USER) {
            Map<StoreTable, List<String>> found = users.get();
            if (!found.isEmpty()) {
                throw new ItemInUseException(table, name, found);
            }
        }
    }

    private static void requireValid(StoreTable table, String name, List<FieldProblem> problems) {
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(table, name, problems);
        }
    }

    /**
     * A connection string whose password is the API's mask means "keep the stored password". When
     * there is none to keep, the mask stays and validation refuses it.
     */
    private static Source keepStoredPassword(Source source, Source stored) {
        if (stored == null) {
            return source;
        }
        try {
            ConnectionString given = ConnectionString.parse(source.connStr());
            if (given.password().filter(ConnectionString.MASK::equals).isEmpty()) {
                return source;
            }
            return ConnectionString.parse(stored.connStr()).password()
                    .map(password -> source.withConnStr(given.withPassword(password).render()))
                    .orElse(source);
        } catch (InvalidConnectionStringException e) {
            return source; // validation reports it, naming connStr
        }
    }

    private static Object userItem(StoreState state, StoreTable table, String name) {
        return switch (table) {
            case SOURCES -> state.sources().get(name);
            case METRICS -> state.userMetrics().get(name);
            case PRESETS -> state.userPresets().get(name);
        };
    }

    private static Object builtInItem(StoreState state, StoreTable table, String name) {
        return switch (table) {
            case SOURCES -> null;
            case METRICS -> state.builtIns().metrics().get(name);
            case PRESETS -> state.builtIns().presets().get(name);
        };
    }
}
