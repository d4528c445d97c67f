package io.pgharvest.store.state;

import static io.pgharvest.model.StoreTable.METRICS;
import static io.pgharvest.model.StoreTable.PRESETS;
import static io.pgharvest.model.StoreTable.SOURCES;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRules;
import io.pgharvest.model.Preset;
import io.pgharvest.model.PresetRules;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceRules;
import io.pgharvest.model.StoreTable;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import io.pgharvest.store.AppliedChanges;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.InvalidConfigException;
import io.pgharvest.store.ItemOrigin;
import io.pgharvest.store.NoSuchItemException;
import io.pgharvest.store.StoreException;
import io.pgharvest.store.StoreIndexFile.ItemStamp;
import io.pgharvest.store.Stored;
import io.pgharvest.store.WriteCondition;
import io.pgharvest.support.ChangeNotifier;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write logic shared by the configuration stores: all items in memory as one immutable
 * {@link StoreState}, validated and versioned here, persisted by a {@link StorePersistence}.
 *
 * <p>A write holds {@link #writeLock} throughout: it asks the persistence for the freshest state
 * (another pgharvest instance may have written to a shared store), validates against it, lets the
 * persistence make the change durable, and only then publishes the new state and advances the
 * notifiers. A refused write throws before anything is persisted; a failed persist leaves the
 * published state as it was. Readers never take the lock.
 */
public class StateConfigStore implements ConfigStore {

    private static final Logger log = LoggerFactory.getLogger(StateConfigStore.class);

    private final StorePersistence persistence;
    private final ItemFingerprints fingerprints = new ItemFingerprints(new PgwatchYaml());
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<StoreTable, ChangeNotifier> tableChanges = new EnumMap<>(StoreTable.class);
    private final ChangeNotifier storeChanges;
    private volatile StoreState state;

    protected StateConfigStore(StorePersistence persistence) {
        this.persistence = persistence;
        this.state = persistence.load();
        this.storeChanges = new ChangeNotifier(state.index());
        for (StoreTable table : StoreTable.values()) {
            tableChanges.put(table, new ChangeNotifier(state.tableIndexes().get(table)));
        }
    }

    /**
     * Publishes a state another instance wrote (read back by the persistence); ignored unless it
     * is newer than the published one, so a late notification never takes the store backwards.
     */
    protected final void publish(StoreState newer) {
        writeLock.lock();
        try {
            if (newer.index() > state.index()) {
                advance(newer);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** The published store index (for the persistence's change watcher). */
    protected final long publishedIndex() {
        return state.index();
    }

    /** The freshest state under the write lock; publishes it when another instance wrote meanwhile. */
    private StoreState begin() {
        StoreState latest = persistence.begin(state);
        if (latest.index() > state.index()) {
            advance(latest);
        }
        return state;
    }

    private void advance(StoreState next) {
        StoreState previous = state;
        state = next;
        for (StoreTable table : StoreTable.values()) {
            if (!next.tableIndexes().get(table).equals(previous.tableIndexes().get(table))) {
                tableChanges.get(table).advanceTo(next.tableIndexes().get(table));
            }
        }
        storeChanges.advanceTo(next.index());
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
        return create(SOURCES, source.name(), source, snapshot -> SourceRules.check(source, snapshot));
    }

    @Override
    public Stored<Source> putSource(Source source, WriteCondition condition) {
        return put(SOURCES, source.name(), source, condition, snapshot -> SourceRules.check(source, snapshot));
    }

    @Override
    public long deleteSource(String name, WriteCondition condition) {
        return remove(SOURCES, name, condition, current -> {
            if (current.origin(SOURCES, name) == null) {
                throw new NoSuchItemException(SOURCES, name);
            }
        });
    }

    @Override
    public Stored<MetricDefinition> createMetric(MetricDefinition metric) {
        return create(METRICS, metric.name(), metric, snapshot -> MetricRules.check(metric));
    }

    @Override
    public Stored<MetricDefinition> putMetric(MetricDefinition metric, WriteCondition condition) {
        return put(METRICS, metric.name(), metric, condition, snapshot -> MetricRules.check(metric));
    }

    @Override
    public long deleteMetric(String name, WriteCondition condition) {
        return remove(METRICS, name, condition, current -> refuseDelete(current, METRICS, name,
                () -> ItemUsers.ofMetric(current.snapshot(), name)));
    }

    @Override
    public Stored<Preset> createPreset(Preset preset) {
        return create(PRESETS, preset.name(), preset, snapshot -> PresetRules.check(preset, snapshot));
    }

    @Override
    public Stored<Preset> putPreset(Preset preset, WriteCondition condition) {
        return put(PRESETS, preset.name(), preset, condition, snapshot -> PresetRules.check(preset, snapshot));
    }

    @Override
    public long deletePreset(String name, WriteCondition condition) {
        return remove(PRESETS, name, condition, current -> refuseDelete(current, PRESETS, name,
                () -> ItemUsers.ofPreset(current.snapshot(), name)));
    }

    @Override
    public AppliedChanges putAll(ConfigChanges changes, boolean dryRun) {
        writeLock.lock();
        try {
            StoreState current = begin();
            var problems = new ArrayList<FieldProblem>();
            refuseRepeatedNames(changes, problems);
            long index = current.index() + 1;
            var staged = new StagedChanges(current, index);
            changes.metrics().forEach(metric -> staged.put(METRICS, metric.name(), metric));
            changes.presets().forEach(preset -> staged.put(PRESETS, preset.name(), preset));
            var sources = new ArrayList<Source>();
            for (Source source : changes.sources()) {
                sources.add(source);
                staged.put(SOURCES, source.name(), source);
            }
            ConfigSnapshot after = staged.state().snapshot();
            changes.metrics().forEach(m -> addAll(problems, "metrics[" + m.name() + "].", MetricRules.check(m)));
            changes.presets().forEach(p -> addAll(problems, "presets[" + p.name() + "].", PresetRules.check(p, after)));
            sources.forEach(s -> addAll(problems, "sources[" + s.name() + "].", SourceRules.check(s, after)));
            if (!problems.isEmpty()) {
                throw new RejectedChangesException(problems);
            }
            if (dryRun || staged.tables().isEmpty()) {
                return new AppliedChanges(dryRun, current.index(), staged.items());
            }
            commit(current, staged.state(), staged.tables());
            var result = new AppliedChanges(false, index, staged.items());
            log.info("{} items written together (index {}): {} created, {} replaced, {} overridden, {} unchanged",
                    changes.size(), index, result.count(AppliedChanges.Action.CREATED),
                    result.count(AppliedChanges.Action.REPLACED), result.count(AppliedChanges.Action.OVERRIDDEN),
                    result.count(AppliedChanges.Action.UNCHANGED));
            return result;
        } finally {
            persistence.abandon();
            writeLock.unlock();
        }
    }

    /** The state after a batch of puts, built item by item; all changed items get the same index. */
    private final class StagedChanges {

        private final long index;
        private final List<AppliedChanges.ItemChange> items = new ArrayList<>();
        private final Set<StoreTable> tables = EnumSet.noneOf(StoreTable.class);
        private final StoreState start;
        private final List<StoreState.ItemPut> puts = new ArrayList<>();
        /** Built on first use after the last put. */
        private StoreState state;

        StagedChanges(StoreState start, long index) {
            this.start = start;
            this.index = index;
        }

        /**
         * Stages {@code item}. Compared with the state before the batch: a batch names each item
         * once ({@link #refuseRepeatedNames}), so no earlier put of the batch changes what this
         * name holds.
         */
        void put(StoreTable table, String name, Object item) {
            ItemOrigin origin = start.origin(table, name);
            if (item.equals(effectiveItem(start, table, name))) {
                items.add(new AppliedChanges.ItemChange(table, name, AppliedChanges.Action.UNCHANGED));
                return;
            }
            var action = origin == null ? AppliedChanges.Action.CREATED
                    : origin == ItemOrigin.BUILT_IN ? AppliedChanges.Action.OVERRIDDEN : AppliedChanges.Action.REPLACED;
            items.add(new AppliedChanges.ItemChange(table, name, action));
            tables.add(table);
            puts.add(new StoreState.ItemPut(table, name, item, new ItemStamp(index, fingerprints.of(table, name, item))));
            state = null;
        }

        /** The state after the staged puts, built once (not per item: quadratic for an import). */
        StoreState state() {
            if (state == null) {
                state = puts.isEmpty() ? start : start.withAll(puts, index);
            }
            return state;
        }

        List<AppliedChanges.ItemChange> items() {
            return items;
        }

        Set<StoreTable> tables() {
            return tables;
        }
    }

    private static void refuseRepeatedNames(ConfigChanges changes, List<FieldProblem> problems) {
        refuseRepeated("sources", changes.sources().stream().map(Source::name).toList(), problems);
        refuseRepeated("metrics", changes.metrics().stream().map(MetricDefinition::name).toList(), problems);
        refuseRepeated("presets", changes.presets().stream().map(Preset::name).toList(), problems);
    }

    private static void refuseRepeated(String kind, List<String> names, List<FieldProblem> problems) {
        var seen = new HashSet<String>();
        names.stream().filter(name -> !seen.add(name)).distinct()
                .forEach(name -> problems.add(new FieldProblem(kind + "[" + name + "]", "is listed more than once")));
    }

    private static void addAll(List<FieldProblem> problems, String prefix, List<FieldProblem> found) {
        found.forEach(p -> problems.add(new FieldProblem(prefix + p.field(), p.message())));
    }

    /**
     * Sets the operator's item {@code name} to what {@code decide} returns; {@code condition} is
     * checked and {@code decide} runs under the write lock, against the freshest state, and either
     * throws to refuse. Writing an item equal to the stored one is a no-op that keeps its modify
     * index and wakes nobody.
     */
    /**
     * Writes {@code item} as a new item of {@code table}, refused when one of its name exists
     * (a built-in one too) or when {@code rules} find problems with it in the current snapshot.
     */
    private <T> Stored<T> create(StoreTable table, String name, T item,
            Function<ConfigSnapshot, List<FieldProblem>> rules) {
        return write(table, name, WriteCondition.any(), current -> {
            refuseDuplicate(current, table, name);
            requireValid(table, name, rules.apply(current.snapshot()));
            return item;
        });
    }

    /** Writes {@code item} over any item of its name when {@code condition} holds and {@code rules} pass. */
    private <T> Stored<T> put(StoreTable table, String name, T item, WriteCondition condition,
            Function<ConfigSnapshot, List<FieldProblem>> rules) {
        return write(table, name, condition, current -> {
            requireValid(table, name, rules.apply(current.snapshot()));
            return item;
        });
    }

    private <T> Stored<T> write(StoreTable table, String name, WriteCondition condition, Function<StoreState, T> decide) {
        writeLock.lock();
        try {
            StoreState current = begin();
            condition.check(table, name, current.snapshot().modifyIndex(table, name));
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
            persistence.abandon();
            writeLock.unlock();
        }
    }

    /**
     * Removes the operator's item {@code name} after {@code condition} and {@code check} (under the
     * write lock) allowed it. A missing item is "not found" whatever the condition expected.
     */
    private long remove(StoreTable table, String name, WriteCondition condition, Consumer<StoreState> check) {
        writeLock.lock();
        try {
            StoreState current = begin();
            if (current.origin(table, name) != null) {
                condition.check(table, name, current.snapshot().modifyIndex(table, name));
            }
            check.accept(current);
            long index = current.index() + 1;
            Object builtIn = builtInItem(current, table, name);
            ItemStamp stamp = builtIn == null ? null : new ItemStamp(index, fingerprints.of(table, name, builtIn));
            commit(current.with(table, name, null, stamp, index), table);
            log.info("{} '{}' {} (index {})", StoreException.noun(table), name,
                    builtIn == null ? "deleted" : "reverted to the built-in definition", index);
            return index;
        } finally {
            persistence.abandon();
            writeLock.unlock();
        }
    }

    private void commit(StoreState next, StoreTable table) {
        commit(state, next, EnumSet.of(table));
    }

    private void commit(StoreState current, StoreState next, Set<StoreTable> tables) {
        persistence.persist(current, next, tables);
        advance(next);
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

    private static Object userItem(StoreState state, StoreTable table, String name) {
        return switch (table) {
            case SOURCES -> state.sources().get(name);
            case METRICS -> state.userMetrics().get(name);
            case PRESETS -> state.userPresets().get(name);
        };
    }

    /** The item readers see under {@code name}: the operator's, else the built-in one. */
    private static Object effectiveItem(StoreState state, StoreTable table, String name) {
        return switch (table) {
            case SOURCES -> state.sources().get(name);
            case METRICS -> state.snapshot().metrics().get(name);
            case PRESETS -> state.snapshot().presets().get(name);
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
