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
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The admin API learns the kinds of sink from the sink registry: the tests' own {@code test-memory}
 * kind, registered only on the test class path, is listed with its options, configured in
 * {@link ApiTestBase}, shown with its delivery state, and written to.
 */
// A context of its own (a property of its own makes Spring start one; the sinks list itself comes
// whole from ApiTestBase's dynamic properties, which take precedence): in the full suite the shared
// API context carries hundreds of other tests' sources, and its memory sink did not show this
// test's measurement within 10 s there, though it did whenever the test ran alone.
@TestPropertySource(properties = "test.context=sink-api-test")
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
        Instant time = Instant.now();
        String source = "sink-api-test-" + time.toEpochMilli();
        dispatcher.publish(List.of(new Measurement(source, "instance_up", time,
                List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of())));
        // This context's sink is one of those started under the name (the JVM keeps several contexts),
        // and the context's other sources may have pushed the measurement out of its most recent ones.
        await().atMost(Duration.ofSeconds(30)).until(() -> MemorySinkPlugin.allStarted("api-memory").stream()
                .anyMatch(sink -> sink.wrote(source)));

        ApiClient.Response response = api().get("/api/v1/sinks");
        assertThat(response.status()).isEqualTo(200);
        JsonNode listed = null;
        for (JsonNode status : response.json()) {
            if (status.get("name").asString().equals("api-memory")) {
                listed = status;
            }
        }
        assertThat(listed).as("api-memory in %s", response.body()).isNotNull();
        assertThat(listed.get("type").asString()).isEqualTo("test-memory");
        assertThat(listed.get("destination").asString()).isEqualTo("memory");
        assertThat(listed.get("written").asLong()).isPositive();
    }
}
