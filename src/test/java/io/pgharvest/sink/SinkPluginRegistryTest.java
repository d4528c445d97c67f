package io.pgharvest.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import io.pgharvest.support.plugin.PluginRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A kind of sink is described by its record and unique by its type, or the registry refuses it at
 * start-up; the registry of sinks holds the application's kinds first.
 */
@Tag("fast")
class SinkPluginRegistryTest {

    record Settings(String url, Integer partitionsAhead) implements SinkSettings {

        @Override
        public List<String> problems(String prefix) {
            return List.of();
        }

        @Override
        public String destination(Path dataDir) {
            return url;
        }
    }

    record Fixture(PluginKind<Settings> kind) implements SinkPlugin<Settings> {

        @Override
        public Sink create(SinkSetup<Settings> setup) {
            throw new UnsupportedOperationException();
        }
    }

    private static PluginKind<Settings> kind(String type, String... options) {
        return new PluginKind<>(SinkPlugin.FAMILY, type, "a test kind", Settings.class,
                java.util.Arrays.stream(options).map(name -> new PluginOption(name, "none", "an option")).toList());
    }

    @Test
    void theOptionsOfAKindAreThoseOfItsRecordInKebabCase() {
        assertThat(kind("t", "url", "partitions-ahead").options()).extracting(PluginOption::name)
                .containsExactly("url", "partitions-ahead");
        assertThatThrownBy(() -> kind("t", "url"))
                .hasMessage("the t sink documents the options [url] but its settings "
                        + Settings.class.getName() + " have [url, partitions-ahead]");
        assertThatThrownBy(() -> kind("Bad_Type", "url", "partitions-ahead"))
                .hasMessageContaining("invalid sink type 'Bad_Type'");
    }

    @Test
    void twoKindsOfOneTypeAreRefused() {
        var first = new Fixture(kind("twin", "url", "partitions-ahead"));
        var second = new Fixture(kind("twin", "url", "partitions-ahead"));
        assertThatThrownBy(() -> new PluginRegistry<SinkPlugin<?>>(List.of(first, second)))
                .hasMessageStartingWith("two sink kinds of type twin: ");
        assertThat(new PluginRegistry<SinkPlugin<?>>(List.of(first)).types()).containsExactly("twin");
    }

    @Test
    void theApplicationsKindsComeFirstInTheOrderOfItsRegistrationFile() {
        try (PluginRegistry<SinkPlugin<?>> registry = SinkPlugin.registry()) {
            assertThat(registry.plugins().stream().filter(plugin -> PluginRegistry.isOwn(plugin, SinkPlugin.class))
                    .map(p -> p.kind().type()))
                    .containsExactly("postgres", "prometheus", "prometheus-remote-write", "jsonfile");
            assertThat(registry.types().getLast()).isEqualTo("test-memory");
        }
    }
}
