package io.pgharvest.sink.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.TestPostgres;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path of a measurement: a source and a metric registered through the admin API, the
 * engine collecting them from a real server, and the rows arriving in a PostgreSQL sink (pgwatch's
 * table layout) and on the Prometheus endpoint, with the row's tag and the source's tags.
 */
class MeasurementsReachSinksEndToEndTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void aRegisteredSourcesRowsArriveInThePostgresSinkAndOnThePrometheusEndpoint(@TempDir Path dataDir)
            throws Exception {
        pg.createDatabase("e2e_sink_source");
        pg.createDatabase("e2e_sink_storage");
        int scrapePort = freePort();
        try (RunningApp app = RunningApp.start(dataDir,
                "--pgharvest.sinks[0].type=postgres", "--pgharvest.sinks[0].url=" + pg.connStr("e2e_sink_storage"),
                "--pgharvest.sinks[0].batch-delay=100ms",
                "--pgharvest.sinks[1].type=prometheus", "--pgharvest.sinks[1].port=" + scrapePort)) {
            ApiClient api = app.api();
            assertThat(api.post("/api/v1/metrics", Map.of("name", "e2e_answer",
                    "sqls", Map.of("14", "select 42 as answer, 'blue' as tag_colour"),
                    "gauges", List.of("answer"))).status()).isEqualTo(201);
            assertThat(api.post("/api/v1/sources", Map.of("name", "e2e-sinks", "connStr",
                    pg.connStr("e2e_sink_source"), "metrics", Map.of("e2e_answer", 1),
                    "tags", Map.of("env", "test"))).status()).isEqualTo(201);

            List<String> row = Awaitility.await("a row in the PostgreSQL sink").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(this::firstStoredRow, r -> !r.isEmpty());
            assertThat(row).containsExactly("e2e-sinks", "42", "blue", "test");

            String series = "pgharvest_e2e_answer_answer{colour=\"blue\",env=\"test\",source=\"e2e-sinks\"} 42.0";
            Awaitility.await("the series on the Prometheus endpoint").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).until(() -> scrape(scrapePort), body -> body.contains(series));
        }
    }

    /** dbname, data.answer, tag_data.colour, tag_data.env of the first stored row; empty before it arrives. */
    private List<String> firstStoredRow() throws Exception {
        try (Connection c = pg.connect("e2e_sink_storage"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select dbname, data->>'answer', tag_data->>'colour', tag_data->>'env'"
                     + " from public.e2e_answer order by time limit 1")) {
            return rs.next() ? List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)) : List.of();
        }
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
