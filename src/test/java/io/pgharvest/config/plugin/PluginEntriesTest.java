package io.pgharvest.config.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pgharvest.support.plugin.Plugin;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.support.plugin.PluginSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Any list of plug-ins binds as {@code pgharvest.sinks} does, its messages in its own family's
 * words: shown on a list of readers that is not the sinks' (the sinks' own cases are
 * {@code SinkEntriesTest}'s).
 */
@Tag("fast")
class PluginEntriesTest {

    /** The options every reader has. */
    record Common(String type, String name, Duration timeout) implements EntryOptions {

        Common {
            timeout = timeout == null ? Duration.ofSeconds(5) : timeout;
        }

        @Override
        public List<String> problems(String prefix) {
            return timeout.isNegative() ? List.of(prefix + ".timeout must not be negative") : List.of();
        }
    }

    record UrlSettings(String url, Integer points) implements PluginSettings {

        @Override
        public List<String> problems(String prefix) {
            var problems = new ArrayList<String>();
            if (url == null) {
                problems.add(prefix + ".url is required");
            }
            return problems;
        }
    }

    record FileSettings(String path) implements PluginSettings {

        @Override
        public List<String> problems(String prefix) {
            return List.of();
        }
    }

    interface Reader<S extends Record & PluginSettings> extends Plugin<S> {
    }

    record Kind<S extends Record & PluginSettings>(PluginKind<S> kind) implements Reader<S> {
    }

    private static final String FAMILY = "test reader";

    private final PluginRegistry<Reader<?>> registry = new PluginRegistry<>(List.of(
            new Kind<>(new PluginKind<>(FAMILY, "remote", "reads over HTTP", UrlSettings.class, List.of(
                    new PluginOption("url", "required", "Where the reader asks. The rest is detail"),
                    new PluginOption("points", "`600`", "Most points a series")))),
            new Kind<>(new PluginKind<>(FAMILY, "file", "reads a file", FileSettings.class, List.of(
                    new PluginOption("path", "required", "The file read"))))));

    private final PluginEntries<Reader<?>, Common> entries =
            new PluginEntries<>(FAMILY, "pgharvest.readers", registry, Common.class);

    @Test
    void entriesBindByTypeToTheirKindsRecordBesideTheCommonOptions() {
        List<PluginEntry<Reader<?>, Common>> bound = entries.bind(environment(Map.of(
                "pgharvest.readers[0].type", "remote", "pgharvest.readers[0].url", "http://vm:8428",
                "pgharvest.readers[0].timeout", "2s",
                "pgharvest.readers[1].type", "remote", "pgharvest.readers[1].url", "http://prom:9090",
                "pgharvest.readers[2].type", "file", "pgharvest.readers[2].path", "/tmp/f",
                "pgharvest.readers[2].name", "archive")));
        assertThat(bound).extracting(PluginEntry::name).containsExactly("remote-0", "remote-1", "archive");
        assertThat(bound).extracting(PluginEntry::property)
                .containsExactly("pgharvest.readers[0]", "pgharvest.readers[1]", "pgharvest.readers[2]");
        assertThat(bound.getFirst().common()).isEqualTo(new Common("remote", null, Duration.ofSeconds(2)));
        assertThat(bound.getFirst().settings()).isEqualTo(new UrlSettings("http://vm:8428", null));
        assertThat(bound.getLast().settings()).isEqualTo(new FileSettings("/tmp/f"));
        assertThat(entries.bind(new StandardEnvironment())).isEmpty();
    }

    @Test
    void everyProblemOfEveryEntryIsNamedInTheFamilysWords() {
        var failure = catchThrowableOfType(PluginConfigurationException.class, () -> entries.bind(environment(Map.of(
                "pgharvest.readers[0].type", "file", "pgharvest.readers[0].points", "10",
                "pgharvest.readers[0].colour", "red", "pgharvest.readers[0].timeout", "-1s",
                "pgharvest.readers[1].type", "ftp",
                "pgharvest.readers[2].type", "remote", "pgharvest.readers[2].name", "r",
                "pgharvest.readers[3].type", "remote", "pgharvest.readers[3].name", "r",
                "pgharvest.readers[3].url", "http://x"))));
        assertThat(failure.problems()).containsExactlyInAnyOrder(
                "pgharvest.readers[0].colour is not an option of any test reader (the options of a file test reader "
                        + "are path)",
                "pgharvest.readers[0].points applies to remote test readers only (most points a series)",
                "pgharvest.readers[0].timeout must not be negative",
                "pgharvest.readers[1].type: this build has no test reader of type 'ftp' (it has remote, file)",
                "pgharvest.readers[2].url is required",
                "pgharvest.readers[3].name 'r' is used by another test reader");
        assertThat(failure).hasMessageStartingWith("Invalid test reader configuration: ");
    }

    @Test
    void theDefaultsAreTheNamedTypesThisBuildHasAtTheirDefaults() {
        assertThat(entries.defaults(List.of("file", "kafka"))).singleElement().satisfies(entry -> {
            assertThat(entry.name()).isEqualTo("file");
            assertThat(entry.property()).isEqualTo("pgharvest.readers (default file test reader)");
            assertThat(entry.common()).isEqualTo(new Common("file", null, null));
            assertThat(entry.settings()).isEqualTo(new FileSettings(null));
        });
    }

    private static StandardEnvironment environment(Map<String, Object> properties) {
        var environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }
}
