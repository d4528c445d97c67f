package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.TestPostgres;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * No literal an application sends leaves pgharvest: a workload runs a corpus of constants (strings
 * in every PostgreSQL spelling, bit strings, numbers, arrays, a comment) on a real server as a
 * long-running statement, an idle transaction holding a lock and a statement waiting for it, while
 * pgharvest collects the catalog's long_running_queries, idle_in_transaction, blocking_locks,
 * stat_statements and the query insights' query_stats and query_samples as a pg_monitor role into
 * every kind of sink. None of the corpus appears in the
 * JSON file, the PostgreSQL sink's tables, the Prometheus scrape, the remote-write requests or the
 * log; the redacted texts and the query IDs do.
 */
@ExtendWith(OutputCaptureExtension.class)
class LiteralCorpusEndToEndTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SOURCE_DB = "corpus_source";
    private static final String STORAGE_DB = "corpus_storage";
    private static final String MONITOR = "corpus_monitor";

    /** Each constant as written in SQL, and the text of it that must never be seen downstream. */
    private static final Map<String, String> CORPUS = new LinkedHashMap<>();

    static {
        CORPUS.put("'corpus-plain-7f3a'", "corpus-plain");
        CORPUS.put("'corpus-doubled''quote-1a1a'", "corpus-doubled");
        CORPUS.put("E'corpus-escape\\'d-91b2'", "corpus-escape");
        CORPUS.put("e'corpus-lower-e\\n-4c2d'", "corpus-lower-e");
        CORPUS.put("U&'corpus-unic\\0064e-55c1'", "corpus-unic");
        CORPUS.put("U&'corpus-uesc!0064-6a7b' UESCAPE '!'", "corpus-uesc");
        CORPUS.put("N'corpus-national-3e3e'", "corpus-national");
        CORPUS.put("$$corpus-dollar-2d4e$$", "corpus-dollar");
        CORPUS.put("$secret$corpus-tagged-8e1f$secret$", "corpus-tagged");
        CORPUS.put("B'1011011101111011'", "1011011101111011");
        CORPUS.put("X'C0FFEE4242'", "C0FFEE4242");
        CORPUS.put("777000777123", "777000777123");
        CORPUS.put("3.14159265358", "14159265358");
        CORPUS.put("ARRAY['corpus-array-a1', 'corpus-array-b2']", "corpus-array");
        CORPUS.put("'{corpus-arrlit-x,corpus-arrlit-y}'::text[]", "corpus-arrlit");
        CORPUS.put("ARRAY[424242424242, 535353535353]", "424242424242");
    }

    /** A JSON line of query_stats with rows: a read after the baseline. */
    private static final Pattern QUERY_STATS_ROW = Pattern.compile("\"metric\":\"query_stats\",\"time\":\"[^\"]*\",\"rows\":\\[\\{");
    private static final String COMMENT = "/* corpus-comment-9d9d */";
    private static final List<String> SECRETS = secrets();

    @Test
    void noLiteralOfTheCorpusReachesAnySinkOrTheLogWhileRedactedTextsDo(@TempDir Path dataDir, CapturedOutput log)
            throws Exception {
        prepareServer();
        int scrapePort = freePort();
        var remoteWrites = new ConcurrentLinkedQueue<String>();
        HttpServer receiver = remoteWriteReceiver(remoteWrites);
        Path jsonFile = dataDir.resolve("out.jsonl");
        var workload = new ArrayList<Connection>();
        try (RunningApp app = RunningApp.start(dataDir,
                "--pgharvest.sinks[0].type=postgres", "--pgharvest.sinks[0].url=" + pg.connStr(STORAGE_DB),
                "--pgharvest.sinks[0].batch-delay=100ms",
                "--pgharvest.sinks[1].type=prometheus", "--pgharvest.sinks[1].port=" + scrapePort,
                "--pgharvest.sinks[2].type=prometheus-remote-write",
                "--pgharvest.sinks[2].url=http://127.0.0.1:" + receiver.getAddress().getPort() + "/api/v1/write",
                "--pgharvest.sinks[2].batch-delay=100ms",
                "--pgharvest.sinks[3].type=jsonfile", "--pgharvest.sinks[3].path=" + jsonFile)) {
            ApiClient api = app.api();
            // The catalog's SQL with its thresholds (a minute running, 30 s idle) cut to nothing, so
            // the workload shows at once.
            overrideThreshold(api, "long_running_queries", "interval '1 minute'");
            overrideThreshold(api, "idle_in_transaction", "interval '30 seconds'");
            startWorkload(workload);

            assertThat(api.post("/api/v1/sources", Map.of("name", "corpus", "connStr",
                    "postgresql://" + MONITOR + "@" + pg.host() + ":" + pg.port() + "/" + SOURCE_DB,
                    "metrics", Map.of("long_running_queries", 1, "idle_in_transaction", 1, "blocking_locks", 1,
                            "stat_statements", 1, "query_stats", 1, "query_samples", 1))).status()).isEqualTo(201);

            // What the redacted statements look like: names and parameters stay.
            String longRunning = "select pg_sleep($1) as corpus_marker_long";
            String waiter = "update corpus_t set v = $1 where id = $2";
            try {
                Awaitility.await("the redacted texts in the JSON file and the PostgreSQL sink")
                        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> Files.readString(jsonFile).contains(longRunning)
                                && Files.readString(jsonFile).contains(waiter)
                                && storedRows().contains(longRunning) && storedRows().contains(waiter)
                                && storedRows().contains("\"query_id\": \"")
                                && storedRows().contains("corpus_marker_idle"));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(e.getMessage() + "\nJSON file:\n" + Files.readString(jsonFile)
                        + "\nPostgreSQL sink:\n" + storedRows(), e);
            }
            Awaitility.await("query_stats and query_samples rows in the JSON file").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> {
                        String json = Files.readString(jsonFile);
                        runCorpusStatements(); // more calls than the baseline saw, on every read
                        return QUERY_STATS_ROW.matcher(json).find() && json.contains("\"metric\":\"query_samples\"")
                                && json.contains("PgSleep");
                    });
            String normalized = "select $1::int as corpus_marker_stats";
            Awaitility.await("pg_stat_statements' normalized text as a Prometheus label, scraped and written")
                    .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> scrape(scrapePort).contains(normalized)
                            && String.join("\n", remoteWrites).contains(normalized));

            String json = Files.readString(jsonFile);
            String stored = storedRows();
            String scraped = scrape(scrapePort);
            String written = String.join("\n", remoteWrites);
            String status = api.get("/api/v1/sources/corpus/status").body();
            assertThat(scraped).contains("pgharvest_query_stats_calls{", "pgharvest_query_samples_duration_s{");
            for (String secret : SECRETS) {
                assertThat(json).as("JSON file").doesNotContain(secret);
                assertThat(stored).as("PostgreSQL sink").doesNotContain(secret);
                assertThat(scraped).as("Prometheus scrape").doesNotContain(secret);
                assertThat(written).as("remote write").doesNotContain(secret);
                assertThat(status).as("source status").doesNotContain(secret);
                assertThat(log.getAll()).as("log").doesNotContain(secret);
            }
            // The workload really carried the corpus to the server: what was redacted was there.
            String activity = pg.queryString(SOURCE_DB, "select string_agg(query, ' ') from pg_stat_activity"
                    + " where query like '%corpus%'");
            assertThat(activity).contains(SECRETS);
        } finally {
            endWorkload(workload);
            receiver.stop(0);
        }
    }

    @Test
    void aSourceThatKeepsLiteralsGetsTheTextsAsSent(@TempDir Path dataDir) throws Exception {
        prepareServer();
        Path jsonFile = dataDir.resolve("out.jsonl");
        var workload = new ArrayList<Connection>();
        try (RunningApp app = RunningApp.start(dataDir,
                "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + jsonFile)) {
            ApiClient api = app.api();
            overrideThreshold(api, "long_running_queries", "interval '1 minute'");
            startWorkload(workload);
            var created = api.post("/api/v1/sources", Map.of("name", "corpus-kept", "connStr",
                    "postgresql://" + MONITOR + "@" + pg.host() + ":" + pg.port() + "/" + SOURCE_DB,
                    "metrics", Map.of("long_running_queries", 1), "keepQueryLiterals", true));
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.json().get("keepQueryLiterals").asBoolean()).isTrue();

            Awaitility.await("the texts as sent in the JSON file").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> Files.readString(jsonFile).contains("corpus_marker_long"));
            assertThat(Files.readString(jsonFile)).contains("corpus-plain-7f3a", "corpus-dollar-2d4e");
        } finally {
            endWorkload(workload);
        }
    }

    private static void prepareServer() {
        pg.createDatabase(SOURCE_DB);
        pg.createDatabase(STORAGE_DB);
        pg.execute(SOURCE_DB, """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'corpus_monitor') then
                    create role corpus_monitor login in role pg_monitor;
                  end if;
                end $$""");
        pg.execute(SOURCE_DB, "create extension if not exists pg_stat_statements");
        pg.execute(SOURCE_DB, "create table if not exists corpus_t (id int primary key, v text)");
        pg.execute(SOURCE_DB, "insert into corpus_t values (1, 'x') on conflict do nothing");
    }

    /** The statements of the corpus: running, idle in a transaction holding a row lock, waiting for it. */
    private static void startWorkload(List<Connection> workload) throws Exception {
        endWorkload(List.of());
        String literals = String.join(", ", CORPUS.keySet());
        runCorpusStatements();
        Connection running = pg.connect(SOURCE_DB);
        workload.add(running);
        Thread.ofVirtual().start(() -> quietly(running,
                COMMENT + " select pg_sleep(600) as corpus_marker_long, " + literals));
        Connection idle = pg.connect(SOURCE_DB);
        workload.add(idle);
        idle.setAutoCommit(false);
        try (Statement s = idle.createStatement()) {
            s.execute("update corpus_t as corpus_marker_idle set v = 'corpus-blocker-5e5e' where id = 1"
                    + " and ARRAY[424242424242] is not null and 777000777123 > 0 " + COMMENT);
        }
        Connection waiting = pg.connect(SOURCE_DB);
        workload.add(waiting);
        Thread.ofVirtual().start(() -> quietly(waiting,
                "update corpus_t set v = $w$corpus-waiter-6f6f$w$ where id = 1 " + COMMENT));
        Awaitility.await("the workload running, idle and waiting").atMost(Duration.ofSeconds(30))
                .until(() -> pg.queryString(SOURCE_DB, "select count(*) from pg_stat_activity where pid <> pg_backend_pid()"
                        + " and query like '%corpus%' and (state = 'idle in transaction' or wait_event_type = 'Lock'"
                        + " or query like '%pg_sleep(600)%')"), "3"::equals);
    }

    /** The corpus as short statements that finish, so pg_stat_statements counts them. */
    private static void runCorpusStatements() throws Exception {
        try (Connection c = pg.connect(SOURCE_DB); Statement s = c.createStatement()) {
            for (int i = 0; i < 3; i++) {
                s.execute("select " + i + "::int as corpus_marker_stats, " + String.join(", ", CORPUS.keySet()) + " "
                        + COMMENT);
            }
        }
    }

    /** Closing a connection does not end a backend inside pg_sleep: it is terminated. */
    private static void endWorkload(List<Connection> workload) throws Exception {
        pg.queryString(SOURCE_DB, "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                + " where pid <> pg_backend_pid() and datname = '" + SOURCE_DB + "' and query like '%corpus%'");
        for (Connection c : workload) {
            c.close();
        }
    }

    private static void quietly(Connection connection, String sql) {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        } catch (Exception e) {
            // ended by closing the connection at the end of the test
        }
    }

    private static void overrideThreshold(ApiClient api, String metric, String threshold) {
        ObjectNode definition = (ObjectNode) api.get("/api/v1/metrics/" + metric).json();
        String text = definition.toString().replace(threshold, "interval '1 millisecond'");
        assertThat(text).as(metric + " has the threshold " + threshold).isNotEqualTo(definition.toString());
        ObjectNode changed = (ObjectNode) JSON.readTree(text);
        changed.retain("name", "description", "sqls", "gauges", "instanceLevel", "nodeStatus", "storageName",
                "initSql", "statementTimeoutSeconds", "instanceSqls");
        var response = api.put("/api/v1/metrics/" + metric, changed);
        assertThat(response.status()).as(response.toString()).isIn(200, 201);
    }

    /** Every row of every table the PostgreSQL sink wrote, as text. */
    private static String storedRows() throws Exception {
        var all = new StringBuilder();
        try (Connection c = pg.connect(STORAGE_DB); Statement s = c.createStatement()) {
            var tables = new ArrayList<String>();
            try (ResultSet rs = s.executeQuery("select format('%I.%I', n.nspname, c.relname) from pg_class c"
                    + " join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r'"
                    + " and n.nspname not in ('pg_catalog', 'information_schema')")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("select to_jsonb(t)::text from " + table + " t")) {
                    while (rs.next()) {
                        all.append(rs.getString(1)).append('\n');
                    }
                }
            }
        }
        return all.toString();
    }

    /** A remote-write receiver keeping each request's body, decompressed (protobuf strings are plain UTF-8). */
    private static HttpServer remoteWriteReceiver(ConcurrentLinkedQueue<String> bodies) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/write", exchange -> {
            byte[] compressed = exchange.getRequestBody().readAllBytes();
            int length = SnappyDecompressor.getUncompressedLength(compressed, 0);
            byte[] raw = new byte[length];
            new SnappyDecompressor().decompress(compressed, 0, compressed.length, raw, 0, length);
            bodies.add(new String(raw, StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        return server;
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

    private static List<String> secrets() {
        var all = new ArrayList<>(CORPUS.values());
        all.addAll(List.of("corpus-comment", "corpus-blocker", "corpus-waiter", "corpus-array-b2", "535353535353"));
        return List.copyOf(all);
    }
}
