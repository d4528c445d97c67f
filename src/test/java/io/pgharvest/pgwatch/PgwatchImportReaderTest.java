package io.pgharvest.pgwatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.pgwatch.format.ConfigFileException;
import io.pgharvest.pgwatch.format.EnvironmentReferences;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("fast")
class PgwatchImportReaderTest {

    private final PgwatchImportReader reader = new PgwatchImportReader(
            Map.of("PGPASS", "p@ss w0rd", "MONITOR_USER", "monitor", "PRESET", "standard", "SOURCE_KIND",
                    "postgres")::get);

    private PgwatchImport read(String yaml) {
        return reader.read(yaml.getBytes(StandardCharsets.UTF_8), "body");
    }

    /** The way start-up import files are read: the only way environment references are expanded. */
    private PgwatchImport readStartupFile(String yaml) {
        try {
            Path dir = Files.createTempDirectory("pgwatch-import");
            Path file = Files.writeString(dir.resolve("sources.yaml"), yaml);
            return reader.read(List.of(file));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aPgwatchSourcesFileMapsToSources() {
        PgwatchImport read = read("""
                - name: orders
                  kind: postgres-continuous-discovery
                  conn_str: postgresql://monitor@db1:5432/orders
                  preset_metrics: standard
                  custom_metrics: {wal: 30, settings: 0}
                  preset_metrics_standby: standard_standby
                  custom_metrics_standby: {wal: 60}
                  include_pattern: ^shop_
                  exclude_pattern: _tmp$
                  is_enabled: false
                  group: eu
                  custom_tags: {env: prod}
                  only_if_master: true
                """);

        assertThat(read.problems()).isEmpty();
        assertThat(read.notices()).isEmpty();
        Source source = read.changes().sources().getFirst();
        assertThat(source).isEqualTo(new Source("orders", "postgresql://monitor@db1:5432/orders",
                SourceKind.fromLabel("postgres-continuous-discovery"), "eu", false, "standard", Map.of("wal", 30, "settings", 0),
                "standard_standby", Map.of("wal", 60), Map.of("env", "prod"), true, "^shop_", "_tmp$"));
    }

    @Test
    void aPgwatchMetricsFileMapsToMetricsAndPresets() {
        PgwatchImport read = read("""
                metrics:
                  my_metric:
                    description: mine
                    sqls:
                      11: select 1 as x
                      14: select 2 as x
                    init_sql: create extension if not exists pg_stat_statements
                    gauges: [x]
                    is_instance_level: true
                    node_status: standby
                    storage_name: my_store
                presets:
                  mine:
                    description: my preset
                    metrics: {my_metric: 30}
                """);

        MetricDefinition metric = read.changes().metrics().getFirst();
        assertThat(metric.sqls()).containsEntry(11, "select 1 as x").containsEntry(14, "select 2 as x");
        assertThat(metric.instanceLevel()).isTrue();
        assertThat(metric.storageName()).isEqualTo("my_store");
        assertThat(metric.initSql()).contains("pg_stat_statements");
        assertThat(read.changes().presets().getFirst().metrics()).containsEntry("my_metric", 30);
    }

    @Test
    void environmentReferencesInTheConnectionStringOfAStartupFileAreExpanded() {
        PgwatchImport read = readStartupFile("""
                - name: a
                  conn_str: host=db1 user=$MONITOR_USER password='${PGPASS}' options='-c x=$$5'
                  is_enabled: true
                - name: b
                  conn_str: postgresql://u@h/db
                  preset_metrics: $PRESET
                  is_enabled: true
                """);

        assertThat(read.problems()).isEmpty();
        assertThat(read.changes().sources().get(0).connStr())
                .isEqualTo("host=db1 user=monitor password='p@ss w0rd' options='-c x=$5'");
        assertThat(read.changes().sources().get(1).preset()).isEqualTo("standard");
    }

    @Test
    void unsetVariablesAreProblemsThatNameTheFieldButNeverAConnectionStringsVariable() {
        PgwatchImport read = readStartupFile("""
                - name: a
                  conn_str: postgresql://u:$Secret_Fragment@h/db
                  preset_metrics: $NO_SUCH_PRESET_VARIABLE
                  is_enabled: true
                """);

        assertThat(read.problems()).extracting(FieldProblem::field)
                .containsExactlyInAnyOrder("sources[a].conn_str", "[0].preset_metrics");
        assertThat(read.problems().toString()).doesNotContain("Secret_Fragment").contains("NO_SUCH_PRESET_VARIABLE");
    }

    @Test
    void contentThatArrivesThroughTheApiNeverReadsTheEnvironment() {
        PgwatchImport read = read("""
                - name: a
                  conn_str: host=db1 user=monitor password='${PGPASS}' options='-c x=$$5'
                  is_enabled: true
                - name: b
                  conn_str: postgresql://u@h/db
                  preset_metrics: $PRESET
                  is_enabled: true
                """);

        assertThat(read.problems()).extracting(FieldProblem::field)
                .containsExactlyInAnyOrder("sources[a].conn_str", "[1].preset_metrics");
        assertThat(read.problems()).allSatisfy(p -> assertThat(p.message()).contains("only in files imported at start-up"));
        assertThat(read.problems().toString()).doesNotContain("p@ss w0rd").doesNotContain("standard");
    }

    @Test
    void unknownAndUnsupportedFieldsBecomeNoticesWithTheirLine() {
        PgwatchImport read = read("""
                metrics:
                  m1:
                    sqls: {14: select 1 as x}
                    metric_attrs:
                      disabled_days: '0'
                ---
                - name: a
                  conn_str: postgresql://u@h/db
                  is_superuser: true
                """);

        assertThat(read.notices()).extracting(ImportNotice::toString).containsExactly(
                "body line 4: metrics.m1.metric_attrs: unknown field; ignored",
                "body line 9: [0].is_superuser: not used: pgharvest never creates helper functions or extensions"
                        + " on monitored servers; ignored",
                "body line 7: [0].is_enabled: missing: imported as enabled (pgwatch would treat the source as"
                        + " disabled); add is_enabled: false to keep it off");
    }

    @Test
    void aSourceOfAKindPgharvestDoesNotCollectIsSkippedWithANoticeAndTheRestIsRead() {
        PgwatchImport read = read("""
                - name: a
                  conn_str: postgresql://u@h/db
                - name: b
                  kind: mysql
                  conn_str: mysql://localhost:3306/app
                - name: c
                  kind: prometheus
                  conn_str: http://localhost:9187/metrics
                """);

        assertThat(read.changes().sources()).extracting(Source::name).containsExactly("a");
        assertThat(read.notices()).filteredOn(n -> n.message().startsWith("skipped"))
                .extracting(n -> n.location() + ": " + n.field())
                .containsExactly("body line 3: [1]", "body line 6: [2]");
        assertThat(read.problems()).isEmpty();
    }

    @Test
    void aKindGivenAsAnEnvironmentReferenceIsExpandedInStartupFiles() {
        PgwatchImport read = readStartupFile("""
                - name: a
                  conn_str: postgresql://u@h/db
                  kind: $SOURCE_KIND
                """);

        assertThat(read.changes().sources()).singleElement()
                .satisfies(s -> assertThat(s.kind()).isEqualTo(SourceKind.fromLabel("postgres")));
    }

    @Test
    void aFolderIsReadInPathOrderAndLaterMetricDefinitionsWin(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("b"));
        Files.writeString(dir.resolve("a.yaml"), "metrics:\n  m1:\n    sqls: {14: select 1 as first}\n");
        Files.writeString(dir.resolve("b/c.yml"), "metrics:\n  m1:\n    sqls: {14: select 2 as second}\n");
        Files.writeString(dir.resolve("b/notes.txt"), "not yaml: [");
        Files.writeString(dir.resolve("sources.yaml"), "- name: s1\n  conn_str: postgresql://u@h/db\n  is_enabled: true\n");

        PgwatchImport read = reader.read(List.of(dir));

        assertThat(read.changes().metrics()).singleElement()
                .satisfies(m -> assertThat(m.sqls()).containsEntry(14, "select 2 as second"));
        assertThat(read.changes().sources()).extracting(Source::name).containsExactly("s1");
        assertThat(read.notices()).singleElement().satisfies(n -> {
            assertThat(n.field()).isEqualTo("metrics[m1]");
            assertThat(n.message()).contains("replaces the one in " + dir.resolve("a.yaml"));
        });
    }

    @Test
    void aSourceNameTwiceIsAProblem(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("one.yaml"), "- name: s1\n  conn_str: postgresql://u@h/a\n  is_enabled: true\n");
        Files.writeString(dir.resolve("two.yaml"), "- name: s1\n  conn_str: postgresql://u@h/b\n  is_enabled: true\n");

        PgwatchImport read = reader.read(List.of(dir));

        assertThat(read.problems()).extracting(FieldProblem::field).containsExactly("sources[s1]");
    }

    @Test
    void aMissingLocationIsAnErrorNamingIt(@TempDir Path dir) {
        assertThatThrownBy(() -> reader.read(List.of(dir.resolve("nope.yaml"))))
                .isInstanceOf(ConfigFileException.class)
                .hasMessageContaining("nope.yaml").hasMessageContaining("no such file");
    }

    @Test
    void storeFieldNamesAreTranslatedToPgwatchSpelling() {
        assertThat(PgwatchImportReader.pgwatchField("sources[a.b].connStr")).isEqualTo("sources[a.b].conn_str");
        assertThat(PgwatchImportReader.pgwatchField("sources[a].metrics.wal")).isEqualTo("sources[a].custom_metrics.wal");
        assertThat(PgwatchImportReader.pgwatchField("sources[a].standbyPreset")).isEqualTo("sources[a].preset_metrics_standby");
        assertThat(PgwatchImportReader.pgwatchField("presets[p].metrics.wal")).isEqualTo("presets[p].metrics.wal");
        assertThat(PgwatchImportReader.pgwatchField("metrics[m].storageName")).isEqualTo("metrics[m].storage_name");
        assertThat(PgwatchImportReader.pgwatchField("metrics[m].sqls.8")).isEqualTo("metrics[m].sqls.8");
    }

    @Test
    void aDollarWithoutANameStaysAsItIs() {
        var references = new EnvironmentReferences(Map.of("A", "x")::get);

        assertThat(references.expand("cost $5, $A and ${A}, a$$b, end$").value()).isEqualTo("cost $5, x and x, a$b, end$");
        assertThat(references.expand("$B").missing()).containsExactly("B");
    }
}
