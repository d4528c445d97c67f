package io.pgharvest.support.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A kind is described by its record and unique by its type, or the registry refuses it at start-up. */
@Tag("fast")
class PluginRegistryTest {

    record Settings(String url, Integer partitionsAhead) implements PluginSettings {

        @Override
        public List<String> problems(String prefix) {
            return List.of();
        }
    }

    static final class Closing implements Plugin<Settings> {

        private final PluginKind<Settings> kind;
        private final AtomicInteger closed;

        Closing(PluginKind<Settings> kind, AtomicInteger closed) {
            this.kind = kind;
            this.closed = closed;
        }

        @Override
        public PluginKind<Settings> kind() {
            return kind;
        }

        @Override
        public void close() {
            closed.incrementAndGet();
            throw new IllegalStateException("closing fails, the others are still closed");
        }
    }

    private static PluginKind<Settings> kind(String type, String... options) {
        return new PluginKind<>("test plug-in", type, "a test kind", Settings.class,
                Arrays.stream(options).map(name -> new PluginOption(name, "none", "an option")).toList());
    }

    @Test
    void theOptionsOfAKindAreThoseOfItsRecordInKebabCase() {
        PluginKind<Settings> kind = kind("t", "url", "partitions-ahead");
        assertThat(kind.options()).extracting(PluginOption::name).containsExactly("url", "partitions-ahead");
        assertThat(kind.option("partitionsAhead")).map(PluginOption::name).contains("partitions-ahead");
        assertThat(kind.option("partitions-ahead")).isPresent();
        assertThat(kind.option("password")).isEmpty();
        assertThatThrownBy(() -> kind("t", "url"))
                .hasMessage("the t test plug-in documents the options [url] but its settings "
                        + Settings.class.getName() + " have [url, partitions-ahead]");
        assertThatThrownBy(() -> kind("Bad_Type", "url", "partitions-ahead"))
                .hasMessageContaining("invalid test plug-in type 'Bad_Type'");
    }

    @Test
    void twoKindsOfOneTypeAreRefusedAndClosingClosesEveryKind() {
        var closed = new AtomicInteger();
        var first = new Closing(kind("twin", "url", "partitions-ahead"), closed);
        var second = new Closing(kind("twin", "url", "partitions-ahead"), closed);
        assertThatThrownBy(() -> new PluginRegistry<>(List.of(first, second)))
                .hasMessageStartingWith("two test plug-in kinds of type twin: ");
        var other = new Closing(kind("other", "url", "partitions-ahead"), closed);
        var registry = new PluginRegistry<>(List.of(first, other));
        assertThat(registry.types()).containsExactly("twin", "other");
        assertThat(registry.plugin("other")).containsSame(other);
        assertThat(registry.plugin("none")).isEmpty();
        registry.close();
        assertThat(closed).hasValue(2);
    }
}
