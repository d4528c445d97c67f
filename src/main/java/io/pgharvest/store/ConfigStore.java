package io.pgharvest.store;

import io.pgharvest.store.WriteCondition.StaleIndexException;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.support.ChangeNotifier;
import java.util.Optional;

/**
 * Where sources, metrics and presets live. Readers take {@link #snapshot()} (immutable, cheap);
 * writers go through the mutators below, which validate, persist, publish a new snapshot and
 * advance the notifiers, in that order, so a rejected or failed write changes nothing.
 *
 * <p>Every successful write advances the store-wide index by one; the written item and its
 * table take that index as their modify index. Writes are serialized; readers never block.
 *
 * <p>Replacing and deleting writes may carry a {@link WriteCondition} (Consul's check-and-set): the
 * modify index the writer read, checked atomically with the write; a stale one throws
 * {@link StaleIndexException} and changes nothing. The overloads without one are unconditional.
 *
 * <p>Metrics and presets are the built-in catalog merged with the operator's own. Writing a
 * built-in name creates an override; deleting an override restores the built-in; a built-in that
 * is not overridden cannot be deleted.
 */
public interface ConfigStore {

    /** The current configuration; never null. */
    ConfigSnapshot snapshot();

    /** The notifier of one table: its index is the store index of that table's last change. */
    ChangeNotifier changes(StoreTable table);

    /** The notifier of the store-wide index, advanced on every change of any table. */
    ChangeNotifier changes();

    /** Whether {@code name} in {@code table} is built in, an override of a built-in, or the operator's own. */
    Optional<ItemOrigin> origin(StoreTable table, String name);

    /**
     * Adds a source.
     *
     * @throws InvalidConfigException if the source is invalid
     * @throws io.pgharvest.store.state.DuplicateItemException if a source of that name exists
     */
    Stored<Source> createSource(Source source);

    /**
     * Creates or replaces the source of that name. The store keeps what it is given: a password
     * that is still the API's mask is invalid here (the API resolves the mask before writing).
     *
     * @throws InvalidConfigException if the source is invalid
     */
    default Stored<Source> putSource(Source source) {
        return putSource(source, WriteCondition.any());
    }

    /**
     * {@link #putSource(Source)} if the source's modify index is still the one {@code condition} expects.
     *
     * @throws StaleIndexException if it is not; nothing was changed
     */
    Stored<Source> putSource(Source source, WriteCondition condition);

    /**
     * Removes a source.
     *
     * @return the new store index
     * @throws NoSuchItemException if there is no such source
     */
    default long deleteSource(String name) {
        return deleteSource(name, WriteCondition.any());
    }

    /** {@link #deleteSource(String)} if the source's modify index is still the one {@code condition} expects. */
    long deleteSource(String name, WriteCondition condition);

    /**
     * Adds a metric of the operator's own.
     *
     * @throws io.pgharvest.store.state.DuplicateItemException if the name exists, built in or not
     */
    Stored<MetricDefinition> createMetric(MetricDefinition metric);

    /** Creates, replaces, or overrides the built-in metric of that name. */
    default Stored<MetricDefinition> putMetric(MetricDefinition metric) {
        return putMetric(metric, WriteCondition.any());
    }

    /** {@link #putMetric(MetricDefinition)} under {@code condition}; see {@link #putSource(Source, WriteCondition)}. */
    Stored<MetricDefinition> putMetric(MetricDefinition metric, WriteCondition condition);

    /**
     * Removes the operator's metric, or the override of a built-in one (which then applies again).
     *
     * @return the new store index
     * @throws io.pgharvest.store.state.ItemInUseException if a source or preset refers to it and no built-in takes its place
     * @throws io.pgharvest.store.state.BuiltInItemException if it is a built-in that is not overridden
     */
    default long deleteMetric(String name) {
        return deleteMetric(name, WriteCondition.any());
    }

    /** {@link #deleteMetric(String)} under {@code condition}. */
    long deleteMetric(String name, WriteCondition condition);

    /** Adds a preset of the operator's own; see {@link #createMetric}. */
    Stored<Preset> createPreset(Preset preset);

    /** Creates, replaces, or overrides the built-in preset of that name. */
    default Stored<Preset> putPreset(Preset preset) {
        return putPreset(preset, WriteCondition.any());
    }

    /** {@link #putPreset(Preset)} under {@code condition}. */
    Stored<Preset> putPreset(Preset preset, WriteCondition condition);

    /** Removes a preset; see {@link #deleteMetric}. */
    default long deletePreset(String name) {
        return deletePreset(name, WriteCondition.any());
    }

    /** {@link #deletePreset(String)} under {@code condition}. */
    long deletePreset(String name, WriteCondition condition);

    /**
     * Creates or replaces every item of {@code changes} in one write (one index step), validated
     * against the configuration as it will be afterwards, so that a source may name a preset
     * that comes with it. Items equal to what is there already are left alone. With
     * {@code dryRun} nothing is written and the result says what would happen.
     *
     * @throws io.pgharvest.store.state.RejectedChangesException naming every problem of every item; nothing was changed
     */
    AppliedChanges putAll(ConfigChanges changes, boolean dryRun);
}
