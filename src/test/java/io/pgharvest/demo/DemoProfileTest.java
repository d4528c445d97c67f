package io.pgharvest.demo;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.embedded.EmbeddedPostgres;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.store.ConfigStore;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** What a newcomer sees with the demo profile: measurements in JSON lines and on Prometheus. */
class DemoProfileTest {

    @Test
    void theDemoProfileCollectsAnEmbeddedServerIntoJsonLinesAndPrometheusWithinAMinute(@TempDir Path dir)
            throws Exception {
        int prometheusPort = freePort();
        Path jsonLines = dir.resolve("measurements.jsonl");
        // A server left behind by an earlier crash that took its watchdog too.
        EmbeddedPostgres stale = EmbeddedPostgres.launch(Map.of());
        long stalePid = stale.postmasterPid();
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(dir.resolve("data").resolve(DemoDatabase.MARKER_FILE), stalePid + " " + stale.instanceDir());
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PgharvestApplication.class)
                .profiles("demo")
                // The default (superuser logins refused), whatever the test JVM allows elsewhere.
                .run("--server.port=0", "--pgharvest.security.allow-superuser-sources=false",
                        "--pgharvest.data-dir=" + dir.resolve("data"),
                        "--pgharvest.api.token=demo-test-token-0123456789",
                        "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + jsonLines,
                        "--pgharvest.sinks[1].type=prometheus", "--pgharvest.sinks[1].port=" + prometheusPort)) {
            assertThat(app.getBean(ConfigStore.class).snapshot().sources()).containsKey(DemoDatabase.SOURCE);
            assertThat(ProcessHandle.of(stalePid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(stale.instanceDir()).doesNotExist();
            assertThat(dir.resolve("data").resolve(DemoDatabase.MARKER_FILE)).exists();
            var demo = ConnectionString.parse(app.getBean(ConfigStore.class).snapshot().sources()
                    .get(DemoDatabase.SOURCE).connStr());
            assertThat(demo.user()).isEqualTo("pgharvest_monitor");
            assertThat(demo.password()).hasValueSatisfying(pw -> assertThat(pw).hasSizeGreaterThanOrEqualTo(24));
            var withoutPassword = "jdbc:postgresql://" + demo.hosts().getFirst().host() + ":"
                    + demo.hosts().getFirst().port() + "/postgres?user=postgres";
            assertThatThrownBy(() -> DriverManager.getConnection(withoutPassword).close())
                    .isInstanceOf(SQLException.class).hasMessageContaining("password");

            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    Files.exists(jsonLines) && Files.readString(jsonLines).contains("\"metric\":\"db_stats\""));
            String lines = Files.readString(jsonLines);
            assertThat(lines).contains("\"source\":\"demo\"").contains("\"metric\":\"instance_up\"");
            // the queries view's data: query_stats rows once the baseline read is past (10 s later)
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    Files.readString(jsonLines).contains("\"metric\":\"query_stats\",\"time\":")
                            && Files.readString(jsonLines).lines().anyMatch(line ->
                                    line.contains("\"metric\":\"query_stats\"") && line.contains("\"calls\":")));

            String scrape = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> scrape(prometheusPort), body -> body.contains("db_stats"));
            assertThat(scrape).contains("source=\"demo\"");
        } finally {
            if (Files.exists(stale.instanceDir())) {
                stale.close(); // only when the demo did not clean it up (the test failed before)
            }
        }
        assertThat(dir.resolve("data").resolve(DemoDatabase.MARKER_FILE)).doesNotExist();
    }

    private static String scrape(int port) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
