package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.model.BoundedText;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;

/**
 * A monitored database raises a 30-million-character error with ANSI colours and newlines (issue
 * 38): the failing metric's status, the log view and the process's log hold a bounded, escaped
 * text; the API keeps answering; the source's other metric and another source keep collecting.
 */
@ExtendWith(OutputCaptureExtension.class)
class HugeServerErrorTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "huge_error_db";
    private static final String QUIET_DB = "huge_error_quiet_db";
    /** 26 characters a piece: ESC, a colour, CR and LF in each; 1.2 million pieces = 31.2 million characters. */
    private static final String PIECE_SQL = "E'\\x1b[31mred\\nforged line\\r'";

    @Test
    void aThirtyMegabyteErrorIsKeptLoggedAndServedBoundedAndEscaped(@TempDir Path dataDir, CapturedOutput output)
            throws Exception {
        pg.createDatabase(DB);
        pg.createDatabase(QUIET_DB);
        pg.execute(DB, "create or replace function public.loud() returns int language plpgsql as $f$"
                + " begin raise exception '%', repeat(" + PIECE_SQL + ", 1200000); end $f$");
        Path jsonFile = dataDir.resolve("out.jsonl");
        int outputBefore = output.getAll().length();
        try (RunningApp app = RunningApp.start(dataDir,
                "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + jsonFile)) {
            ApiClient api = app.api();
            assertThat(api.post("/api/v1/metrics", Map.of("name", "loud_error", "sqls",
                    Map.of("14", "select public.loud() as x"), "gauges", List.of("*"))).status()).isEqualTo(201);
            assertThat(api.post("/api/v1/metrics", Map.of("name", "calm_ping", "sqls",
                    Map.of("14", "select 1 as calm"), "gauges", List.of("*"))).status()).isEqualTo(201);
            assertThat(api.post("/api/v1/sources", Map.of("name", "loud", "connStr", pg.connStr(DB),
                    "metrics", Map.of("loud_error", 1, "calm_ping", 1))).status()).isEqualTo(201);
            assertThat(api.post("/api/v1/sources", Map.of("name", "quiet", "connStr", pg.connStr(QUIET_DB),
                    "metrics", Map.of("calm_ping", 1))).status()).isEqualTo(201);

            JsonNode loud = Awaitility.await("the loud metric's error in the status").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> metric(api.get("/api/v1/sources/loud/status").json(), "loud_error"),
                            m -> m.hasNonNull("lastError"));
            String kept = loud.get("lastError").asString();
            assertThat(kept).hasSizeLessThanOrEqualTo(BoundedText.MAX_CHARS)
                    .contains("metric loud_error", "P0001", "\\u001b[31mred\\nforged line\\r", "characters cut]")
                    .doesNotContain("\u001b", "\n", "\r");

            // the service answers, the loud source's other metric and the quiet source keep collecting
            long quietRows = rowsOf(jsonFile, "\"source\":\"quiet\"");
            long calmLoudRows = rowsOf(jsonFile, "\"source\":\"loud\"");
            Awaitility.await("both sources keep collecting").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> rowsOf(jsonFile, "\"source\":\"quiet\"") >= quietRows + 3
                            && rowsOf(jsonFile, "\"source\":\"loud\"") >= calmLoudRows + 3);
            assertThat(api.get("/api/v1/sources").status()).isEqualTo(200);
            assertThat(api.get("/api/v1/sources/loud/status").body()).hasSizeLessThan(64 * 1024);

            var logs = api.get("/api/v1/logs?level=WARN");
            assertThat(logs.status()).isEqualTo(200);
            assertThat(logs.body()).hasSizeLessThan(1024 * 1024);
            List<String> messages = logs.json().valueStream().map(line -> line.get("message").asString()).toList();
            assertThat(messages).anySatisfy(m -> assertThat(m).contains("loud_error", "\\u001b[31mred\\nforged line"));
            assertThat(api.get("/api/v1/logs?level=WARN&limit=1").json().size()).isEqualTo(1);
            assertThat(api.get("/api/v1/logs?level=LOUD&limit=501").errorFields()).containsExactly("level", "limit");
            assertThat(messages).allSatisfy(m -> assertThat(m).hasSizeLessThanOrEqualTo(BoundedText.MAX_CHARS)
                    .doesNotContain("\u001b", "\n", "\r"));
        }
        String logged = output.getAll().substring(outputBefore);
        assertThat(logged).contains("loud_error", "\\u001b[31mred\\nforged line\\r").doesNotContain("\u001b[31mred");
        assertThat(logged.lines()).noneMatch(line -> line.startsWith("forged line"))
                .allMatch(line -> line.length() < BoundedText.MAX_CHARS + 300);
        assertThat(logged).hasSizeLessThan(4 * 1024 * 1024);
    }

    private static JsonNode metric(JsonNode status, String name) {
        return status.get("runtime").get("metrics").valueStream().filter(m -> m.get("name").asString().equals(name))
                .findFirst().orElseThrow();
    }

    private static long rowsOf(Path jsonFile, String marker) throws Exception {
        if (!Files.exists(jsonFile)) {
            return 0;
        }
        try (var lines = Files.lines(jsonFile)) {
            return lines.filter(line -> line.contains(marker) && line.contains("\"metric\":\"calm_ping\"")).count();
        }
    }
}
