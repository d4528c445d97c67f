package io.pgharvest.sink.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.dispatch.SinkContexts;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A kind of sink added the way every kind is - a package (this one, on the test class path only)
 * and one line in {@code META-INF/services/io.pgharvest.sink.SinkPlugin} - is configured from
 * {@code pgharvest.sinks}, validated, and written to, with no change to the sink machinery.
 */
@Tag("fast")
class MemorySinkPluginTest {

    @TempDir
    Path dataDir;

    private final ApplicationContextRunner runner = SinkContexts.runner();

    @Test
    void theRegistryFindsTheFixtureBesideTheApplicationsKinds() {
        try (var registry = SinkPlugin.registry()) {
            assertThat(registry.types()).containsExactly("postgres", "prometheus", "prometheus-remote-write",
                    "jsonfile", MemorySinkPlugin.TYPE);
        }
    }

    @Test
    void aFixtureSinkIsConfiguredFromItsOwnOptionsAndWrittenTo() {
        runner.withPropertyValues("pgharvest.data-dir=" + dataDir, "pgharvest.sinks[0].type=test-memory",
                "pgharvest.sinks[0].name=fixture-a", "pgharvest.sinks[0].capacity=2",
                "pgharvest.sinks[0].label=kept here", "pgharvest.sinks[0].batch-delay=10ms").run(context -> {
                    assertThat(context).hasNotFailed();
                    SinkDispatcher dispatcher = context.getBean(SinkDispatcher.class);
                    assertThat(dispatcher.statuses()).singleElement().satisfies(status -> {
                        assertThat(status.name()).isEqualTo("fixture-a");
                        assertThat(status.type()).isEqualTo("test-memory");
                        assertThat(status.destination()).isEqualTo("memory (kept here)");
                    });
                    for (int seq = 1; seq <= 3; seq++) {
                        dispatcher.publish(List.of(measurement(seq)));
                    }
                    MemorySink sink = MemorySinkPlugin.started("fixture-a");
                    await().atMost(Duration.ofSeconds(10)).until(() -> dispatcher.statuses().getFirst().written() == 3);
                    // capacity=2 reached the sink: it keeps the last two.
                    assertThat(sink.measurements()).extracting(m -> m.rows().getFirst().values().get("seq"))
                            .containsExactly(2, 3);
                    assertThat(dispatcher.statuses()).extracting(SinkStatus::up).containsExactly(true);
                });
        assertThat(MemorySinkPlugin.started("fixture-a").closed()).isTrue();
    }

    @Test
    void theFixturesChecksAndOptionsAreEnforcedLikeThoseOfTheApplicationsKinds() {
        runner.withPropertyValues("pgharvest.data-dir=" + dataDir, "pgharvest.sinks[0].type=test-memory",
                "pgharvest.sinks[0].capacity=0", "pgharvest.sinks[0].path=/tmp/x.jsonl",
                "pgharvest.sinks[1].type=jsonfile", "pgharvest.sinks[1].path=" + dataDir.resolve("m.jsonl"),
                "pgharvest.sinks[1].capacity=5").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(SinkContexts.messages(context.getStartupFailure())).contains(
                            "pgharvest.sinks[0].capacity must be between 1 and 100000 (was 0)",
                            "pgharvest.sinks[0].path applies to prometheus and jsonfile sinks only",
                            "pgharvest.sinks[1].capacity applies to test-memory sinks only");
                });
    }

    private static Measurement measurement(int seq) {
        return new Measurement("fixture", "instance_up", Instant.now(),
                List.of(new Measurement.Row(Map.of("seq", seq), null)), Map.of());
    }
}
