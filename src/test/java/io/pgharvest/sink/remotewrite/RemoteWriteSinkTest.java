package io.pgharvest.sink.remotewrite;

import io.pgharvest.sink.dispatch.SinkBindingProbe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SeriesMapping;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.SinkRetryAfterException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The protocol as a receiver sees it, and what each kind of answer does to a batch. */
class RemoteWriteSinkTest {

    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00.123Z");
    private static final String TOKEN = "secret-token-value-42";

    @TempDir
    Path dir;

    @Test
    void aRequestCarriesTheProtocolHeadersAuthTenantAndSortedLabelsWithCollectionTimes() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url(), "bearer-token", TOKEN)) {
            sink.write(List.of(measurement(T0, 3, 100), measurement(T0.plusSeconds(1), 4, 110)));

            ScriptedReceiver.Received request = receiver.received().getLast();
            assertThat(request.headers().getFirst("Content-Encoding")).isEqualTo("snappy");
            assertThat(request.headers().getFirst("Content-Type")).isEqualTo("application/x-protobuf");
            assertThat(request.headers().getFirst("X-Prometheus-Remote-Write-Version")).isEqualTo("0.1.0");
            assertThat(request.headers().getFirst("Authorization")).isEqualTo("Bearer " + TOKEN);
            assertThat(request.headers().getFirst("X-Scope-OrgID")).isEqualTo("tenant-a");
            List<WriteRequests.DecodedSeries> series = WriteRequests.decode(request.body());
            assertThat(series).extracting(s -> s.labels().get("__name__"))
                    .containsExactly("pgharvest_db_stats_numbackends", "pgharvest_db_stats_xact_commit_total");
            WriteRequests.DecodedSeries gauge = series.getFirst();
            assertThat(gauge.labels().keySet()).containsExactly("Zone", "__name__", "datname", "env", "source");
            assertThat(gauge.labels()).containsEntry("source", "db1").containsEntry("datname", "shop");
            assertThat(gauge.timestamps()).containsExactly(T0.toEpochMilli(), T0.plusSeconds(1).toEpochMilli());
            assertThat(gauge.values()).containsExactly(3.0, 4.0);
            assertThat(series.get(1).values()).containsExactly(100.0, 110.0);
            assertThat(sink.samplesSent()).isEqualTo(4);
        }
    }

    @Test
    void samplesOfASeriesAreSentInTimeOrderWhateverTheBatchOrder() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url())) {
            sink.write(List.of(measurement(T0.plusSeconds(2), 5, 1), measurement(T0, 3, 1),
                    measurement(T0.plusSeconds(1), 4, 1)));

            var gauge = WriteRequests.decode(receiver.received().getLast().body()).getFirst();
            assertThat(gauge.timestamps()).containsExactly(T0.toEpochMilli(), T0.plusSeconds(1).toEpochMilli(),
                    T0.plusSeconds(2).toEpochMilli());
            assertThat(gauge.values()).containsExactly(3.0, 4.0, 5.0);
        }
    }

    @Test
    void basicAuthenticationIsSentAsConfigured() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url(), "user", "writer", "password",
                "pw-123")) {
            sink.write(List.of(measurement(T0, 1, 1)));
            assertThat(receiver.received().getLast().headers().getFirst("Authorization"))
                    .isEqualTo("Basic d3JpdGVyOnB3LTEyMw==");
        }
    }

    @Test
    void a429WithRetryAfterIsRetriedNoSoonerThanAsked() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url())) {
            receiver.then(429, Map.of("Retry-After", "120"));
            assertThatThrownBy(() -> sink.write(List.of(measurement(T0, 1, 1))))
                    .isInstanceOfSatisfying(SinkRetryAfterException.class,
                            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(120)));
            // Within the wait, neither a write nor a probe reaches the receiver.
            assertThatThrownBy(() -> sink.write(List.of(measurement(T0, 1, 1))))
                    .isInstanceOf(SinkRetryAfterException.class);
            assertThatThrownBy(sink::probe).isInstanceOf(SinkRetryAfterException.class);
            assertThat(receiver.received()).hasSize(1);
        }
    }

    @Test
    void a503IsAFailureToRetryAndA400QuarantinesTheBatch() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url())) {
            receiver.then(503, Map.of());
            assertThatThrownBy(() -> sink.write(List.of(measurement(T0, 1, 1)))).isInstanceOf(IOException.class)
                    .hasMessageContaining("503");
            receiver.then(400, Map.of());
            List<Measurement> batch = List.of(measurement(T0, 1, 1), measurement(T0.plusSeconds(1), 2, 2));
            assertThatThrownBy(() -> sink.write(batch)).isInstanceOfSatisfying(SinkRejectedException.class, e -> {
                assertThat(e.quarantined()).isTrue();
                assertThat(e.rejected()).isEqualTo(batch);
                assertThat(e.getMessage()).contains("400").contains("scripted 400");
            });
            receiver.then(401, Map.of());
            assertThatThrownBy(() -> sink.write(batch)).as("credentials, not data: kept and retried")
                    .isInstanceOf(IOException.class).hasMessageContaining("401");
        }
    }

    @Test
    void aRedirectIsNotFollowedSoCredentialsStayWithTheConfiguredHost() throws Exception {
        try (var elsewhere = new ScriptedReceiver(); var receiver = new ScriptedReceiver();
                var sink = sink(receiver.url(), "bearer-token", TOKEN)) {
            receiver.then(307, Map.of("Location", elsewhere.url()));
            assertThatThrownBy(() -> sink.write(List.of(measurement(T0, 1, 1)))).isInstanceOf(IOException.class)
                    .hasMessageContaining("redirects are not followed").hasMessageNotContaining(TOKEN);
            assertThat(elsewhere.received()).isEmpty();
        }
    }

    @Test
    void anHttpsReceiverIsTrustedThroughTheConfiguredCaFile() throws Exception {
        SSLContext serverTls = selfSignedServer();
        try (var receiver = new ScriptedReceiver(serverTls)) {
            try (var sink = sink(receiver.url(), "tls-ca-file", dir.resolve("cert.pem").toString())) {
                sink.write(List.of(measurement(T0, 1, 1)));
            }
            assertThat(receiver.received()).hasSize(1);
            try (var untrusting = sink(receiver.url())) {
                assertThatThrownBy(() -> untrusting.write(List.of(measurement(T0, 1, 1))))
                        .isInstanceOf(IOException.class);
            }
            assertThat(receiver.received()).hasSize(1);
        }
    }

    @Test
    void settingsThatCannotWorkAreRefusedAtStartupNamingThePropertyWithoutQuotingSecrets() {
        var problems = bind(Map.of("url", "http://writer:hunter2@example.com/api/v1/write", "bearer-token", TOKEN,
                "user", "writer", "port", "9090", "headers.Authorization", "Basic x", "request-timeout", "0s"));
        assertThat(problems).contains("pgharvest.sinks[0].url must not carry credentials")
                .contains("pgharvest.sinks[0].bearer-token excludes user/password")
                .contains("pgharvest.sinks[0].user and pgharvest.sinks[0].password go together")
                .contains("pgharvest.sinks[0].port applies to prometheus sinks only")
                .contains("pgharvest.sinks[0].headers.Authorization is set by the sink itself")
                .contains("pgharvest.sinks[0].request-timeout must be a positive duration")
                .doesNotContain("hunter2").doesNotContain(TOKEN);
        assertThat(bind(Map.of("url", "ftp://example.com/write"))).contains("must be an http:// or https:// URL");
        assertThat(bind(Map.of("url", "http://example.com/write", "tls-ca-file", "/x.pem")))
                .contains("tls-ca-file needs an https:// url");
        var onJsonFile = Map.of("type", "jsonfile", "name", "j", "path", "/tmp/x.jsonl", "bearer-token", TOKEN,
                "headers.A", "b");
        assertThat(SinkBindingProbe.problems(List.of(onJsonFile)))
                .contains("pgharvest.sinks[0].bearer-token applies to prometheus-remote-write sinks only")
                .contains("pgharvest.sinks[0].headers applies to prometheus-remote-write sinks only");
    }

    @Test
    void settingsNeverShowTheirSecrets() {
        RemoteWriteSinkProperties settings = properties(Map.of("url", "https://example.com/write?token=q-secret", "bearer-token",
                TOKEN, "headers.X-Api-Key", "header-secret"));
        assertThat(settings.toString()).contains("X-Api-Key").doesNotContain(TOKEN).doesNotContain("q-secret")
                .doesNotContain("header-secret");
        assertThat(ReceiverEndpoint.of("p", settings).toString()).contains("https://example.com/write")
                .doesNotContain(TOKEN).doesNotContain("q-secret").doesNotContain("header-secret");
    }

    @Test
    void anUnreadableCaFileStopsStartupNamingTheProperty() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.pem"), "not a certificate");
        assertThatThrownBy(() -> sink("https://127.0.0.1:1/api/v1/write", "tls-ca-file", notPem.toString()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("p.tls-ca-file");
    }

    private static String bind(Map<String, String> options) {
        var entry = new java.util.HashMap<>(options);
        entry.put("type", "prometheus-remote-write");
        return SinkBindingProbe.problems(List.of(entry));
    }

    private static RemoteWriteSinkProperties properties(Map<String, String> options) {
        var headers = new java.util.TreeMap<String, String>();
        options.forEach((k, v) -> {
            if (k.startsWith("headers.")) {
                headers.put(k.substring("headers.".length()), v);
            }
        });
        return new RemoteWriteSinkProperties(options.get("url"), options.get("user"), options.get("password"),
                options.get("bearer-token"), headers, options.containsKey("tls-ca-file")
                        ? Path.of(options.get("tls-ca-file")) : null, null,
                options.containsKey("request-timeout") ? Duration.parse("PT" + options.get("request-timeout")) : null);
    }

    @Test
    void aTopStatementsTextIsItsOwnInfoSeriesWrittenWithItsFiguresNeverALabelOfThem() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url())) {
            var stats = new Measurement("db1", "query_stats", T0, List.of(
                    new Measurement.Row(Map.of("calls", 3), Map.of("queryid", "42", "dbname", "app", "user", "u")),
                    new Measurement.Row(Map.of("calls", 1), Map.of("queryid", "42", "dbname", "app", "user", "v")),
                    new Measurement.Row(Map.of("calls", 9), Map.of("queryid", "other", "dbname", "app"))), Map.of());
            var texts = new Measurement("db1", "query_texts", T0, List.of(
                    new Measurement.Row(Map.of("query", "select $1 from orders"), Map.of("queryid", "42"))), Map.of());
            sink.write(List.of(stats, texts));

            List<WriteRequests.DecodedSeries> series = WriteRequests.decode(receiver.received().getLast().body());
            assertThat(series).filteredOn(s -> s.labels().get("__name__").equals("pgharvest_query_stats_calls"))
                    .hasSize(3).allSatisfy(s -> assertThat(s.labels()).doesNotContainKey("query"));
            assertThat(series).filteredOn(s -> s.labels().get("__name__").equals("pgharvest_query_text_info"))
                    .singleElement().satisfies(info -> {
                        assertThat(info.labels()).containsEntry("query", "select $1 from orders")
                                .containsEntry("queryid", "42").containsEntry("dbname", "app")
                                .containsEntry("source", "db1").doesNotContainKey("user");
                        assertThat(info.timestamps()).containsExactly(T0.toEpochMilli());
                        assertThat(info.values()).containsExactly(1.0);
                    });
        }
    }

    static RemoteWriteSink sink(String url, String... options) {
        var map = new java.util.HashMap<String, String>(Map.of("url", url, "headers.X-Scope-OrgID", "tenant-a"));
        for (int i = 0; i < options.length; i += 2) {
            map.put(options[i], options[i + 1]);
        }
        RemoteWriteSinkProperties settings = properties(map);
        return new RemoteWriteSink("rw", ReceiverEndpoint.of("p", settings), new SeriesMapping(catalog(), null),
                Clock.systemUTC(), new SimpleMeterRegistry());
    }

    /** db_stats with numbackends a gauge, xact_commit a counter. */
    private static MetricCatalog catalog() {
        return name -> name.equals("db_stats") ? Optional.of(new MetricDefinition("db_stats", "", Map.of(14, "select 1"),
                List.of("numbackends"), false, null, "db_stats", null, null, null)) : Optional.empty();
    }

    static Measurement measurement(Instant time, int backends, long commits) {
        var values = new java.util.LinkedHashMap<String, Object>();
        values.put("numbackends", backends);
        values.put("xact_commit", commits);
        values.put("label_text", "not a number");
        return new Measurement("db1", "db_stats", time,
                List.of(new Measurement.Row(values, Map.of("datname", "shop"))), Map.of("env", "prod", "Zone", "a"));
    }

    /** An https server context with a self-signed certificate for 127.0.0.1, made by openssl; cert.pem is its CA. */
    private SSLContext selfSignedServer() throws Exception {
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", dir.resolve("key.pem").toString(),
                "-out", dir.resolve("cert.pem").toString());
        run("openssl", "pkcs12", "-export", "-in", dir.resolve("cert.pem").toString(), "-inkey",
                dir.resolve("key.pem").toString(), "-out", dir.resolve("server.p12").toString(), "-passout", "pass:test");
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            keys.load(in, "test".toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, "test".toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        return context;
    }

    private void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("openssl failed: " + Files.readString(dir.resolve("openssl.log")));
        }
    }

    @Test
    void theOperatorsTagWinsOverARowsTagColumnOfTheSameName() throws Exception {
        try (var receiver = new ScriptedReceiver(); var sink = sink(receiver.url())) {
            sink.write(List.of(new Measurement("db1", "db_stats", T0, List.of(new Measurement.Row(
                    Map.of("numbackends", 3), Map.of("env", "from-the-row", "datname", "shop"))), Map.of("env", "prod"))));

            var gauge = WriteRequests.decode(receiver.received().getLast().body()).getFirst();
            assertThat(gauge.labels()).containsEntry("env", "prod").containsEntry("datname", "shop");
        }
    }
}
