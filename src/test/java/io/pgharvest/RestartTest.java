package io.pgharvest;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.store.ConfigStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's content and indexes survive a restart of the application on the same data directory. */
class RestartTest {

    @TempDir
    Path dataDir;

    @Test
    void sourcesMetricsAndPresetsSurviveARestart() {
        long storeIndex;
        String sourcesBefore;
        String metricBefore;
        try (RunningApp first = RunningApp.start(dataDir)) {
            ApiClient api = first.api();
            assertThat(api.post("/api/v1/metrics", Map.of("name", "r_metric", "sqls", Map.of("15", "select 1 as x"),
                    "gauges", List.of("x"), "statementTimeoutSeconds", 3)).status()).isEqualTo(201);
            assertThat(api.put("/api/v1/metrics/db_size", Map.of("sqls", Map.of("14", "select 42 as size_b")))
                    .status()).isEqualTo(200);
            assertThat(api.post("/api/v1/presets", Map.of("name", "r_preset", "metrics", Map.of("r_metric", 10)))
                    .status()).isEqualTo(201);
            assertThat(api.post("/api/v1/sources", Map.of("name", "r-source", "connStr", "postgresql://u:pw@db/x",
                    "preset", "r_preset", "standbyMetrics", Map.of("db_size", 600), "tags", Map.of("dc", "fra"),
                    "onlyIfPrimary", true)).status()).isEqualTo(201);
            sourcesBefore = api.get("/api/v1/sources").body();
            metricBefore = api.get("/api/v1/metrics/db_size").body();
            storeIndex = first.bean(ConfigStore.class).changes().index();
        }

        try (RunningApp second = RunningApp.start(dataDir)) {
            ApiClient api = second.api();
            assertThat(api.get("/api/v1/sources").body()).isEqualTo(sourcesBefore);
            assertThat(api.get("/api/v1/metrics/db_size").body()).isEqualTo(metricBefore);
            assertThat(api.get("/api/v1/presets/r_preset").json().get("metrics").get("r_metric").asInt()).isEqualTo(10);
            assertThat(second.bean(ConfigStore.class).changes().index()).isEqualTo(storeIndex);
            assertThat(second.bean(ConfigStore.class).snapshot().sources().get("r-source").connStr())
                    .isEqualTo("postgresql://u:pw@db/x");
        }
    }

    @Test
    void aFileEditedWhileStoppedAdvancesTheIndexNeverBackwards() throws Exception {
        long indexBeforeEdit;
        long untouchedModifyIndex;
        try (RunningApp first = RunningApp.start(dataDir)) {
            first.api().post("/api/v1/sources", Map.of("name", "kept", "connStr", "postgresql://db/a"));
            first.api().post("/api/v1/sources", Map.of("name", "edited", "connStr", "postgresql://db/b"));
            indexBeforeEdit = first.api().get("/api/v1/sources").index();
            untouchedModifyIndex = first.api().get("/api/v1/sources/kept").json().get("modifyIndex").asLong();
        }
        Path sources = dataDir.resolve("sources.yaml");
        Files.writeString(sources, Files.readString(sources).replace("postgresql://db/b", "postgresql://db/c"));

        try (RunningApp second = RunningApp.start(dataDir)) {
            var listed = second.api().get("/api/v1/sources");
            assertThat(listed.index()).isGreaterThan(indexBeforeEdit);
            assertThat(second.api().get("/api/v1/sources/edited").json().get("modifyIndex").asLong())
                    .isEqualTo(listed.index());
            assertThat(second.api().get("/api/v1/sources/kept").json().get("modifyIndex").asLong())
                    .isEqualTo(untouchedModifyIndex);
        }
    }

    @Test
    void theGeneratedTokenIsStoredOwnerOnlyAndReusedOnRestart() throws Exception {
        try (RunningApp first = RunningApp.startWithGeneratedToken(dataDir)) {
            assertThat(first.api().get("/api/v1/sources").status()).isEqualTo(401);
        }
        Path tokenFile = dataDir.resolve("api-token");
        String token = Files.readString(tokenFile).strip();
        assertThat(token).hasSize(43);
        assertThat(Files.getPosixFilePermissions(tokenFile)).extracting(Enum::name)
                .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");

        try (RunningApp second = RunningApp.startWithGeneratedToken(dataDir)) {
            assertThat(second.api().withToken(token).get("/api/v1/sources").status()).isEqualTo(200);
        }
        assertThat(Files.readString(tokenFile).strip()).isEqualTo(token);
    }

    @Test
    void storeFilesAreOwnerOnly() throws Exception {
        try (RunningApp app = RunningApp.start(dataDir)) {
            app.api().post("/api/v1/sources", Map.of("name", "perm", "connStr", "postgresql://u:pw@db/x"));
            app.api().post("/api/v1/presets", Map.of("name", "perm_preset", "metrics", Map.of("db_stats", 60)));
        }
        // Besides the store, only the default JSON sink's file (the new source's first heartbeat is
        // collected at once), the state pgharvest keeps across restarts (alert state and history, the
        // alert receivers and outbox, the window's snapshot, plan shapes, log read positions) and the
        // sinks' spill folder may be there, all owner-only.
        List<String> files = Files.list(dataDir).filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                .toList();
        assertThat(files).containsAll(List.of("sources.yaml", "metrics.yaml", "store-index.yaml"))
                .isSubsetOf("sources.yaml", "metrics.yaml", "store-index.yaml", "measurements.jsonl",
                        "alert-rules.json", "alert-history.jsonl", "alert-receivers.json",
                        "alert-outbox.json", "window-snapshot.bin", "plan-shapes.json", "log-positions.json");
        for (String file : files) {
            assertThat(Files.getPosixFilePermissions(dataDir.resolve(file))).extracting(Enum::name)
                    .as(file).containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");
        }
        try (var dirs = Files.list(dataDir).filter(Files::isDirectory)) {
            assertThat(dirs).allSatisfy(dir -> assertThat(Files.getPosixFilePermissions(dir)).extracting(Enum::name)
                    .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE", "OWNER_EXECUTE"));
        }
    }
}
