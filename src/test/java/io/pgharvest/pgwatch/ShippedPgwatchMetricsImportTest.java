package io.pgharvest.pgwatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.mock.env.MockEnvironment;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * pgwatch's own shipped metrics.yaml imports with every metric and preset either imported or
 * reported. The file is pgwatch's and never part of this repository, so this check is not in the
 * default suite (tag {@code pgwatch-files}); run it against a pgwatch checkout with
 * {@code PGWATCH_METRICS=/path/to/pgwatch/internal/metrics/metrics.yaml ./mvnw -B verify
 * -Dtest=ShippedPgwatchMetricsImportTest -Dtest.excludedGroups=}. Run without the file it fails.
 */
@Tag("pgwatch-files")
class ShippedPgwatchMetricsImportTest {

    @TempDir
    Path dataDir;

    @Test
    void everyMetricAndPresetOfPgwatchsFileIsImportedOrReported() throws Exception {
        Path file = shippedMetrics();
        ConfigStore store = TestStores.inDirectory(dataDir);
        var importer = new PgwatchImporter(store, new MockEnvironment());

        ImportReport report = importer.importFiles(List.of(file), false);

        var yaml = new YAMLMapper().readTree(file.toFile());
        var reported = report.notices().stream().map(ImportNotice::field).collect(Collectors.toSet());
        var imported = report.changes().stream().map(ImportReport.Change::name).toList();
        for (String metric : yaml.get("metrics").propertyNames()) {
            assertThat(imported.contains(metric) || reported.contains("metrics[" + metric + "]"))
                    .as("metric %s imported or reported", metric).isTrue();
        }
        for (String preset : yaml.get("presets").propertyNames()) {
            assertThat(imported.contains(preset) || reported.contains("presets[" + preset + "]"))
                    .as("preset %s imported or reported", preset).isTrue();
        }
        assertThat(store.snapshot().presets()).containsKeys("basic", "standard", "exhaustive", "full");
        report.notices().forEach(n -> System.out.println("pgwatch metrics.yaml notice: " + n));
    }

    private static Path shippedMetrics() {
        String path = System.getProperty("pgwatch.metrics", System.getenv("PGWATCH_METRICS"));
        assertThat(path).as("path of pgwatch's metrics.yaml (PGWATCH_METRICS or -Dpgwatch.metrics)").isNotBlank();
        Path file = Path.of(path);
        assertThat(Files.isRegularFile(file)).as("%s is a file", file).isTrue();
        return file;
    }
}
