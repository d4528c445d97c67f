package io.pgharvest.pgwatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.mock.env.MockEnvironment;

/**
 * pgwatch's files import unchanged: what pgharvest cannot run is skipped with a notice per item,
 * the rest is imported. The fixture copies the shapes of pgwatch's shipped metrics.yaml (special
 * metrics, pooler keys 0 and 3, presets naming undefined metrics, dashes), not its content.
 */
@Tag("fast")
class PgwatchFilesTriageTest {

    private static final String METRICS = """
            metrics:
              change_events:
                sqls:
                  14: ""
              instance_up:
                sqls:
                  14: select 1::int as is_up
              server_log_event_counts:
                sqls:
                  14: |-
                    /* done in code elsewhere */
              tri_pooler_stats:
                sqls:
                  0: show stats
              tri_pool_nodes:
                sqls:
                  3: show pool_nodes
              tri_old_and_new:
                sqls:
                  8: select 1 as x
                  14: select 2 as x
              tri_writes:
                sqls:
                  14: delete from pg_class
              tri-dashed:
                sqls:
                  14: select 1 as y
            presets:
              tri-with-dashes:
                metrics:
                  tri_old_and_new: 60
                  tri-dashed: 30
                  change_events: 300
                  tri_undefined: 60
                  db_stats: 60
              tri_only_missing:
                metrics:
                  tri_nowhere: 60
              tri_patroni:
                metrics:
                  patroni_primary: 30
            ---
            - name: tri_source
              conn_str: postgresql://monitor@db1.example.com/orders
              preset_metrics: tri-with-dashes
              custom_metrics:
                tri_writes: 60
                instance_up: 60
                tri-dashed: 10
              is_enabled: true
            """;

    @TempDir
    Path dataDir;

    @Test
    void whatPgharvestCannotRunIsReportedPerItemAndSkippedWhileTheRestImports() {
        ConfigStore store = TestStores.inDirectory(dataDir);
        var importer = new PgwatchImporter(store, new MockEnvironment());
        long before = store.snapshot().index();

        ImportReport dry = importer.importYaml(METRICS.getBytes(StandardCharsets.UTF_8), true, false);
        assertThat(store.snapshot().index()).isEqualTo(before);

        ImportReport real = importer.importYaml(METRICS.getBytes(StandardCharsets.UTF_8), false, false);
        for (ImportReport report : List.of(dry, real)) {
            assertThat(report.changes()).extracting(c -> c.type() + " " + c.name() + " " + c.action())
                    .containsExactlyInAnyOrder("metric tri_pooler_stats created", "metric tri_pool_nodes created",
                            "metric tri_old_and_new created", "metric tri_dashed created",
                            "preset tri-with-dashes created", "source tri_source created");
            assertThat(report.notices()).extracting(ImportNotice::field).contains(
                    "metrics[change_events]", "metrics[instance_up]", "metrics[server_log_event_counts]",
                    "metrics[tri_old_and_new].sqls.8", "metrics[tri_writes].sqls.14", "metrics[tri_writes]",
                    "metrics[tri-dashed]", "presets[tri-with-dashes].metrics.change_events",
                    "presets[tri-with-dashes].metrics.tri_undefined", "presets[tri_only_missing].metrics.tri_nowhere",
                    "presets[tri_only_missing]", "presets[tri_patroni]",
                    "sources[tri_source].custom_metrics.tri_writes",
                    "sources[tri_source].custom_metrics.instance_up");
        }
        assertThat(real.notices()).filteredOn(n -> n.field().equals("metrics[tri_writes].sqls.14"))
                .singleElement().satisfies(n -> assertThat(n.message()).contains("DELETE"));
        // pgwatch's patroni preset names the REST API's families, which pgharvest reads without a selection
        assertThat(real.notices()).filteredOn(n -> n.field().equals("presets[tri_patroni].metrics.patroni_primary"))
                .singleElement().satisfies(n -> assertThat(n.message()).contains("REST API"));
        assertThat(real.notices()).filteredOn(n -> n.field().equals("metrics[instance_up]"))
                .singleElement().satisfies(n -> assertThat(n.message()).contains("writes instance_up itself"));

        ConfigSnapshot after = store.snapshot();
        assertThat(after.metrics().get("tri_pooler_stats").sqls()).containsOnlyKeys(0);
        assertThat(after.metrics().get("tri_pool_nodes").sqls()).containsOnlyKeys(3);
        assertThat(after.metrics().get("tri_old_and_new").sqls()).containsOnlyKeys(14);
        assertThat(after.metrics()).doesNotContainKeys("tri_writes", "change_events", "tri-dashed");
        // change_events selects pgharvest's hash metrics, from which it writes pgwatch's *_changes tables
        assertThat(after.presets().get("tri-with-dashes").metrics())
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("tri_old_and_new", 60, "tri_dashed", 30,
                        "db_stats", 60, "table_hashes", 300, "index_hashes", 300, "sproc_hashes", 300,
                        "configuration_hashes", 300, "privilege_changes", 300));
        assertThat(after.presets()).doesNotContainKey("tri_only_missing");
        assertThat(after.sources().get("tri_source").metrics()).containsOnlyKeys("tri_dashed");
    }

    @Test
    void hostAndLogMetricsMapToPgharvestsOwnUnlessTheImportGivesThemSql() {
        ConfigStore store = TestStores.inDirectory(dataDir);
        var importer = new PgwatchImporter(store, new MockEnvironment());
        String yaml = """
                metrics:
                  server_log_event_counts:
                    sqls:
                      14: |-
                        /* tailed in code */
                  psutil_cpu:
                    sqls:
                      14: select cpu_utilization from get_psutil_cpu()
                    is_instance_level: true
                presets:
                  tri_hosts:
                    metrics:
                      server_log_event_counts: 60
                      psutil_cpu: 120
                      cpu_load: 60
                """;

        ImportReport report = importer.importYaml(yaml.getBytes(StandardCharsets.UTF_8), false, false);

        assertThat(report.notices()).filteredOn(n -> n.field().equals("metrics[server_log_event_counts]"))
                .singleElement().satisfies(n -> assertThat(n.message()).contains("built-in server_log_event_counts"));
        ConfigSnapshot after = store.snapshot();
        // The placeholder is not imported: the built-in native implementation stays and presets select it.
        assertThat(after.metrics().get("server_log_event_counts").nativeName()).isEqualTo("server_log_event_counts");
        // pgwatch's helper-function SQL stays SQL (for servers pgharvest does not run beside).
        assertThat(after.metrics().get("psutil_cpu").isNative()).isFalse();
        assertThat(after.metrics().get("psutil_cpu").sqls()).containsKey(14);
        assertThat(after.metrics().get("cpu_load").isNative()).isTrue();
        assertThat(after.presets().get("tri_hosts").metrics())
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("server_log_event_counts", 60, "psutil_cpu", 120,
                        "cpu_load", 60));
    }

    @Test
    void poolerKeysAreNeverPickedForAPostgresServerAndMatchedExactlyForTheirPooler() {
        ConfigStore store = TestStores.inDirectory(dataDir);
        new PgwatchImporter(store, new MockEnvironment()).importYaml("""
                metrics:
                  tri_mixed:
                    sqls:
                      0: show stats
                      3: show pool_nodes
                      14: select 1 as x
                """.getBytes(StandardCharsets.UTF_8), false, false);
        var metric = store.snapshot().metrics().get("tri_mixed");

        assertThat(metric.sqlFor(15)).contains("select 1 as x");
        assertThat(metric.sqlFor(0)).contains("show stats");
        assertThat(metric.sqlFor(3)).contains("show pool_nodes");
        assertThat(metric.sqlFor(10)).isEmpty();
    }
}
