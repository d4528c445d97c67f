package io.pgharvest.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.store.WriteCondition.StaleIndexException;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.state.BuiltInItemException;
import io.pgharvest.store.state.DuplicateItemException;
import io.pgharvest.store.state.ItemInUseException;
import io.pgharvest.store.state.RejectedChangesException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ConfigStore} promises, run against each implementation: the index semantics
 * blocking queries and reapers rely on, validation, built-ins and overrides, and durability
 * across a restart. Subclasses say how to open (and reopen) a store on the same storage.
 */
public abstract class ConfigStoreContract {

    /** A store on this test's storage; a second call reopens the same storage (a restart). */
    protected abstract ConfigStore open();

    public static Source source(String name) {
        return source(name, true, "basic");
    }

    public static Source source(String name, boolean enabled, String preset) {
        return new Source(name, "postgresql://u:pw@db/" + name, null, null, enabled, preset, Map.of("db_stats", 30),
                null, Map.of(), Map.of("env", "test"), false, null, null);
    }

    public static MetricDefinition metric(String name) {
        return new MetricDefinition(name, "test", Map.of(14, "select 1 as one"), List.of(), false, null, null, null,
                null);
    }

    @Test
    void everyWriteAdvancesTheStoreIndexByOneAndOnlyItsTable() {
        ConfigStore store = open();
        long storeIndex = store.changes().index();
        long metricsIndex = store.changes(StoreTable.METRICS).index();

        Stored<Source> stored = store.createSource(source("a"));

        assertThat(stored.created()).isTrue();
        assertThat(stored.modifyIndex()).isEqualTo(storeIndex + 1);
        assertThat(store.snapshot().index()).isEqualTo(storeIndex + 1);
        assertThat(store.changes().index()).isEqualTo(storeIndex + 1);
        assertThat(store.changes(StoreTable.SOURCES).index()).isEqualTo(storeIndex + 1);
        assertThat(store.changes(StoreTable.METRICS).index()).isEqualTo(metricsIndex);
        assertThat(store.snapshot().modifyIndex(StoreTable.SOURCES, "a")).isEqualTo(storeIndex + 1);
    }

    @Test
    void eachItemKeepsTheIndexOfItsOwnLastChange() {
        ConfigStore store = open();
        long first = store.createSource(source("a")).modifyIndex();
        long second = store.createSource(source("b")).modifyIndex();
        long replaced = store.putSource(source("a", false, "basic")).modifyIndex();

        assertThat(second).isEqualTo(first + 1);
        assertThat(replaced).isEqualTo(second + 1);
        assertThat(store.snapshot().modifyIndex(StoreTable.SOURCES, "a")).isEqualTo(replaced);
        assertThat(store.snapshot().modifyIndex(StoreTable.SOURCES, "b")).isEqualTo(second);
    }

    @Test
    void writingAnEqualItemIsANoOpThatKeepsItsIndexAndWakesNobody() {
        ConfigStore store = open();
        long written = store.createSource(source("a")).modifyIndex();

        Stored<Source> again = store.putSource(source("a"));

        assertThat(again.modifyIndex()).isEqualTo(written);
        assertThat(again.created()).isFalse();
        assertThat(store.changes().index()).isEqualTo(written);
    }

    @Test
    void aRefusedWriteChangesNothing() {
        ConfigStore store = open();
        store.createSource(source("one"));
        ConfigSnapshot before = store.snapshot();

        assertThatThrownBy(() -> store.createSource(source("one"))).isInstanceOf(DuplicateItemException.class);
        assertThatThrownBy(() -> store.putPreset(new Preset("p", null, Map.of("nope", 1))))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> store.deleteMetric("db_stats")).isInstanceOf(BuiltInItemException.class);
        assertThatThrownBy(() -> store.deleteSource("missing")).isInstanceOf(NoSuchItemException.class);

        assertThat(store.snapshot()).isEqualTo(before);
        assertThat(store.changes().index()).isEqualTo(before.index());
        assertThat(open().snapshot().index()).isEqualTo(before.index());
    }

    @Test
    void anItemInUseCannotBeDeleted() {
        ConfigStore store = open();
        store.createMetric(metric("mine"));
        store.createPreset(new Preset("uses_mine", null, Map.of("mine", 10)));

        assertThatThrownBy(() -> store.deleteMetric("mine")).isInstanceOf(ItemInUseException.class);
        assertThat(store.snapshot().metrics()).containsKey("mine");
    }

    @Test
    void overridingABuiltInAndDeletingTheOverrideRestoresIt() {
        ConfigStore store = open();
        MetricDefinition builtIn = store.snapshot().metrics().get("db_stats");
        var override = new MetricDefinition("db_stats", "mine", Map.of(14, "select 2 as two"), List.of(), false,
                null, null, null, null);

        long overridden = store.putMetric(override).modifyIndex();
        assertThat(store.origin(StoreTable.METRICS, "db_stats")).contains(ItemOrigin.OVERRIDE);
        assertThat(open().snapshot().metrics().get("db_stats")).isEqualTo(override);

        long reverted = store.deleteMetric("db_stats");

        assertThat(reverted).isEqualTo(overridden + 1);
        assertThat(store.origin(StoreTable.METRICS, "db_stats")).contains(ItemOrigin.BUILT_IN);
        assertThat(store.snapshot().metrics().get("db_stats")).isEqualTo(builtIn);
        assertThat(store.snapshot().modifyIndex(StoreTable.METRICS, "db_stats")).isEqualTo(reverted);
    }

    @Test
    void putAllWritesEverythingInOneIndexStepAndASourceMayUseAPresetOfTheSameBatch() {
        ConfigStore store = open();
        long before = store.snapshot().index();

        AppliedChanges applied = store.putAll(new ConfigChanges(List.of(source("s1", true, "p1")),
                List.of(metric("m1")), List.of(new Preset("p1", null, Map.of("m1", 30)))), false);

        assertThat(applied.index()).isEqualTo(before + 1);
        assertThat(applied.count(AppliedChanges.Action.CREATED)).isEqualTo(3);
        assertThat(store.changes(StoreTable.SOURCES).index()).isEqualTo(before + 1);
        assertThat(store.changes(StoreTable.METRICS).index()).isEqualTo(before + 1);
        assertThat(store.changes(StoreTable.PRESETS).index()).isEqualTo(before + 1);
        assertThat(open().snapshot().sources()).containsKey("s1");
    }

    @Test
    void aRejectedPutAllNamesEveryProblemAndChangesNothing() {
        ConfigStore store = open();
        long before = store.snapshot().index();

        assertThatThrownBy(() -> store.putAll(new ConfigChanges(List.of(source("s1", true, "nope")),
                List.of(), List.of(new Preset("p1", null, Map.of("missing", 30)))), false))
                .isInstanceOfSatisfying(RejectedChangesException.class, e -> assertThat(e.problems()).hasSize(2));

        assertThat(store.snapshot().index()).isEqualTo(before);
        assertThat(store.snapshot().sources()).doesNotContainKey("s1");
    }

    @Test
    void everyFieldReadsBackEqualAfterARestartWithTheSameIndexes() {
        ConfigStore store = open();
        var full = new Source("full", "host=db port=6432 dbname=app user=u password=pw", SourceKind.fromLabel("postgres"), "eu",
                false, "basic", Map.of("locks", 0, "db_size", 600), "minimal", Map.of("backends", 30),
                Map.of("env", "prod", "team", "db"), true, null, null);
        var metric = new MetricDefinition("my_metric", "mine",
                Map.of(14, "select 1 as x\nfrom pg_class", 17, "select 2 as x"), List.of("x"), true,
                NodeStatus.STANDBY, "my_table", "select 0", 7);
        store.createMetric(metric);
        store.createPreset(new Preset("my_preset", "a preset", Map.of("my_metric", 10, "db_stats", 60)));
        store.createSource(full);
        store.deleteSource("full");
        store.createSource(full);

        ConfigStore reopened = open();

        assertThat(reopened.snapshot()).isEqualTo(store.snapshot());
        assertThat(reopened.snapshot().sources().get("full")).isEqualTo(full);
        assertThat(reopened.snapshot().metrics().get("my_metric")).isEqualTo(metric);
        for (StoreTable table : StoreTable.values()) {
            assertThat(reopened.changes(table).index()).isEqualTo(store.changes(table).index());
        }
    }

    @Test
    void aWriteWakesTheWaitersOfItsTableAndOfTheStore() throws Exception {
        ConfigStore store = open();
        long seen = store.changes(StoreTable.SOURCES).index();
        CompletableFuture<Long> table = CompletableFuture.supplyAsync(() -> await(store, StoreTable.SOURCES, seen));
        CompletableFuture<Long> all = CompletableFuture.supplyAsync(() -> await(store, null, store.changes().index()));

        long written = store.createSource(source("a")).modifyIndex();

        assertThat(table.get()).isEqualTo(written);
        assertThat(all.get()).isEqualTo(written);
    }

    @Test
    void aWriteConditionalOnAStaleModifyIndexIsRefusedNamingTheCurrentOneAndChangesNothing() {
        ConfigStore store = open();
        long read = store.createSource(source("cas")).modifyIndex();
        long changed = store.putSource(source("cas", false, "basic"), WriteCondition.modifyIndex(read)).modifyIndex();
        ConfigSnapshot before = store.snapshot();

        assertThatThrownBy(() -> store.putSource(source("cas", true, "basic"), WriteCondition.modifyIndex(read)))
                .isInstanceOfSatisfying(StaleIndexException.class, e -> {
                    assertThat(e.current()).isEqualTo(changed);
                    assertThat(e.expected()).isEqualTo(read);
                    assertThat(e.getMessage()).contains("'cas'").contains(Long.toString(changed));
                });
        assertThatThrownBy(() -> store.deleteSource("cas", WriteCondition.modifyIndex(read)))
                .isInstanceOf(StaleIndexException.class);
        // cas=0: only while the item does not exist
        assertThatThrownBy(() -> store.putSource(source("cas"), WriteCondition.modifyIndex(0)))
                .isInstanceOf(StaleIndexException.class);

        assertThat(store.snapshot()).isEqualTo(before);
        assertThat(store.changes().index()).isEqualTo(before.index());
        assertThat(store.snapshot().sources().get("cas").enabled()).isFalse();
        assertThat(store.deleteSource("cas", WriteCondition.modifyIndex(changed))).isEqualTo(changed + 1);
        assertThat(store.putSource(source("cas"), WriteCondition.modifyIndex(0)).created()).isTrue();
    }

    @Test
    void metricsAndPresetsTakeWriteConditionsToo() {
        ConfigStore store = open();
        long builtIn = store.snapshot().modifyIndex(StoreTable.METRICS, "db_stats");
        var override = new MetricDefinition("db_stats", "mine", Map.of(14, "select 2 as two"), List.of(), false,
                null, null, null, null);
        assertThatThrownBy(() -> store.putMetric(override, WriteCondition.modifyIndex(builtIn + 1000)))
                .isInstanceOfSatisfying(StaleIndexException.class, e -> assertThat(e.current()).isEqualTo(builtIn));
        long overridden = store.putMetric(override, WriteCondition.modifyIndex(builtIn)).modifyIndex();
        assertThatThrownBy(() -> store.deleteMetric("db_stats", WriteCondition.modifyIndex(builtIn)))
                .isInstanceOf(StaleIndexException.class);
        store.deleteMetric("db_stats", WriteCondition.modifyIndex(overridden));

        long preset = store.createPreset(new Preset("cas_preset", null, Map.of("db_stats", 10))).modifyIndex();
        assertThatThrownBy(() -> store.putPreset(new Preset("cas_preset", null, Map.of("db_stats", 20)),
                WriteCondition.modifyIndex(preset - 1))).isInstanceOf(StaleIndexException.class);
        assertThatThrownBy(() -> store.deletePreset("cas_preset", WriteCondition.modifyIndex(preset - 1)))
                .isInstanceOf(StaleIndexException.class);
        assertThat(store.snapshot().presets().get("cas_preset").metrics()).containsEntry("db_stats", 10);
        store.deletePreset("cas_preset", WriteCondition.modifyIndex(preset));
        assertThat(store.snapshot().presets()).doesNotContainKey("cas_preset");
    }

    @Test
    void ofManyWritersThatReadTheSameModifyIndexExactlyOneSucceeds() throws Exception {
        ConfigStore store = open();
        long read = store.createSource(source("race")).modifyIndex();
        int writers = 16;
        var start = new java.util.concurrent.CountDownLatch(1);
        var outcomes = new java.util.ArrayList<java.util.concurrent.Future<Boolean>>();
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < writers; i++) {
                var tags = Map.of("writer", Integer.toString(i));
                Source mine = new Source("race", "postgresql://u:pw@db/race", null, null, true, "basic", Map.of(),
                        null, Map.of(), tags, false, null, null);
                outcomes.add(executor.submit(() -> {
                    start.await();
                    try {
                        store.putSource(mine, WriteCondition.modifyIndex(read));
                        return true;
                    } catch (StaleIndexException e) {
                        return false;
                    }
                }));
            }
            start.countDown();
            int won = 0;
            for (var outcome : outcomes) {
                won += outcome.get() ? 1 : 0;
            }
            assertThat(won).isEqualTo(1);
        }
        assertThat(store.snapshot().modifyIndex(StoreTable.SOURCES, "race")).isEqualTo(read + 1);
    }

    public static long await(ConfigStore store, StoreTable table, long seen) {
        try {
            return (table == null ? store.changes() : store.changes(table)).awaitAbove(seen, Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
