package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.api.BlockingQuery;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The status answers the console polls carry an ETag, and a request that sends it back
 * (If-None-Match) gets 304 without a body while nothing changed, also when a blocking query's wait
 * expires: a console watching 1,000 sources no longer receives the whole fleet every few seconds.
 */
class StatusEtagTest extends ApiTestBase {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void anUnchangedSourceStatusAnswers304WithoutABody() throws Exception {
        api().post("/api/v1/sources", Map.of("name", "etag-quiet", "connStr", "postgresql://db/x", "enabled", false));
        var first = get("/api/v1/sources/etag-quiet/status", Map.of());
        String etag = first.headers().firstValue("ETag").orElse(null);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(etag).as("ETag of the first answer").isNotBlank();

        var again = get("/api/v1/sources/etag-quiet/status", Map.of("If-None-Match", etag));

        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertThat(again.headers().firstValue(BlockingQuery.INDEX_HEADER)).isPresent();
    }

    @Test
    void anExpiredBlockingWaitOnAnUnchangedStatusAnswers304() throws Exception {
        api().post("/api/v1/sources", Map.of("name", "etag-wait", "connStr", "postgresql://db/x", "enabled", false));
        var first = get("/api/v1/sources/etag-wait/status", Map.of());
        String etag = first.headers().firstValue("ETag").orElseThrow();
        String index = first.headers().firstValue(BlockingQuery.INDEX_HEADER).orElseThrow();

        var expired = get("/api/v1/sources/etag-wait/status?index=" + index + "&wait=300ms",
                Map.of("If-None-Match", etag));

        assertThat(expired.statusCode()).isEqualTo(304);
        assertThat(expired.body()).isEmpty();
        assertThat(expired.headers().firstValue(BlockingQuery.INDEX_HEADER)).hasValue(index);
    }

    @Test
    void aChangedStatusAnswersTheNewBodyDespiteTheOldEtag() throws Exception {
        api().post("/api/v1/sources", Map.of("name", "etag-change", "connStr", "postgresql://db/x", "enabled", false));
        var first = get("/api/v1/sources/etag-change/status", Map.of());
        String etag = first.headers().firstValue("ETag").orElseThrow();
        var fleetBefore = get("/api/v1/status", Map.of());
        String fleetEtag = fleetBefore.headers().firstValue("ETag").orElseThrow();

        api().put("/api/v1/sources/etag-change",
                Map.of("connStr", "postgresql://db/x", "enabled", false, "group", "moved"));

        var changed = get("/api/v1/sources/etag-change/status", Map.of("If-None-Match", etag));
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(new String(changed.body(), StandardCharsets.UTF_8)).contains("\"moved\"");
        assertThat(changed.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(etag);
        var fleet = get("/api/v1/status", Map.of("If-None-Match", fleetEtag));
        assertThat(fleet.statusCode()).isEqualTo(200);
        assertThat(new String(fleet.body(), StandardCharsets.UTF_8)).contains("\"moved\"");
    }

    /**
     * The fleet answer: other test classes' sources share this application and may report between
     * two reads, so the 304 is asked for until one pair of reads sees the same fleet (every try
     * that differs must then carry a body).
     */
    @Test
    void anUnchangedFleetStatusAnswers304() throws Exception {
        api().post("/api/v1/sources", Map.of("name", "etag-fleet", "connStr", "postgresql://db/x", "enabled", false));
        HttpResponse<byte[]> answer = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            var first = get("/api/v1/status", Map.of());
            answer = get("/api/v1/status", Map.of("If-None-Match", first.headers().firstValue("ETag").orElseThrow()));
            if (answer.statusCode() == 304) {
                break;
            }
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).isNotEmpty();
        }
        assertThat(answer.statusCode()).isEqualTo(304);
        assertThat(answer.body()).isEmpty();
    }

    /** A thousand sources' status is about 500 KB of JSON: it travels gzipped to a client that accepts it. */
    @Test
    void theFleetStatusTravelsGzipped() throws Exception {
        for (int i = 0; i < 30; i++) {
            api().post("/api/v1/sources", Map.of("name", "etag-gzip-" + i, "connStr", "postgresql://db/x", "enabled", false));
        }
        var plain = get("/api/v1/status", Map.of());
        var zipped = get("/api/v1/status", Map.of("Accept-Encoding", "gzip"));

        assertThat(zipped.statusCode()).isEqualTo(200);
        assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(zipped.body().length).isLessThan(plain.body().length / 3);
        String unzipped = new String(new GZIPInputStream(new ByteArrayInputStream(zipped.body())).readAllBytes(),
                StandardCharsets.UTF_8);
        assertThat(unzipped).contains("etag-gzip-29");
    }

    private HttpResponse<byte[]> get(String path, Map<String, String> headers) throws IOException, InterruptedException {
        var all = new HashMap<>(headers);
        all.put("Authorization", "Bearer " + TOKEN);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofMinutes(2));
        all.forEach(request::header);
        return HTTP.send(request.GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}
