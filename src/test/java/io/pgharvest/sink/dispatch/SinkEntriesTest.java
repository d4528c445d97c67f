package io.pgharvest.sink.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.prometheus.PrometheusSinkProperties;
import io.pgharvest.sink.remotewrite.RemoteWriteSinkProperties;
import io.pgharvest.support.plugin.PluginRegistry;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * How {@code pgharvest.sinks} entries bind to their kinds: an option is the kind's own or common to
 * every sink, else refused naming the entry and the option (and the kinds that have it); where a
 * sink writes is shown without credentials.
 */
@Tag("fast")
class SinkEntriesTest {

    private final PluginRegistry<SinkPlugin<?>> registry = SinkPlugin.registry();

    @AfterEach
    void closeRegistry() {
        registry.close();
    }

    @Test
    void anAddressOnASinkWithoutAnEndpointIsRefusedNamingTheProperty() {
        assertThat(problems(Map.of("type", "prometheus", "port", "0", "address", "127.0.0.1"),
                Map.of("type", "jsonfile", "path", "/tmp/x.jsonl", "address", "127.0.0.1"))).containsExactly(
                "pgharvest.sinks[1].address applies to prometheus sinks only (the scrape endpoint's bind address)");
        List<BoundSink> bound = bind(Map.of("type", "prometheus", "port", "0", "address", "127.0.0.1"));
        assertThat(bound.getFirst().settings()).isEqualTo(new PrometheusSinkProperties(0, null, "127.0.0.1", null));
    }

    @Test
    void anOptionOfAnotherKindOrOfNoKindIsRefusedWhereItUsedToBeIgnored() {
        assertThat(problems(Map.of("type", "jsonfile", "retention", "30d", "colour", "blue"))).containsExactly(
                "pgharvest.sinks[0].colour is not an option of any sink (the options of a jsonfile sink are path, "
                        + "rotation-size, kept-files)",
                "pgharvest.sinks[0].retention applies to postgres sinks only (partitions entirely older than this "
                        + "are dropped)");
    }

    @Test
    void aTypeThatIsMissingOrUnknownIsRefusedNamingTheTypesThisBuildHas() {
        assertThat(problems(Map.of("url", "postgresql://db/m"), Map.of("type", "kafka"))).containsExactly(
                "pgharvest.sinks[0].type is required (postgres, prometheus, prometheus-remote-write, jsonfile, "
                        + "test-memory)",
                "pgharvest.sinks[1].type: this build has no sink of type 'kafka' (it has postgres, prometheus, "
                        + "prometheus-remote-write, jsonfile, test-memory)");
    }

    @Test
    void aValueThatDoesNotConvertIsNamedAndAGapInTheListIsRefused() {
        var properties = new LinkedHashMap<String, Object>();
        properties.put("pgharvest.sinks[0].type", "jsonfile");
        properties.put("pgharvest.sinks[0].kept-files", "many");
        properties.put("pgharvest.sinks[2].type", "jsonfile");
        assertThat(problemsOf(properties)).anySatisfy(p -> assertThat(p).startsWith(
                "pgharvest.sinks[0].kept-files cannot be read:"))
                .contains("pgharvest.sinks[1] is missing: the entries of pgharvest.sinks are numbered from 0 "
                        + "without gaps");
    }

    @Test
    void environmentVariablesBindByTheirRelaxedNames() {
        var environment = new StandardEnvironment();
        // Spring Boot maps PGHARVEST_SINKS_0_TYPE to pgharvest.sinks[0].type in the source of this name.
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(
                "PGHARVEST_SINKS_0_TYPE", "prometheus-remote-write", "PGHARVEST_SINKS_0_URL", "https://vm.example/write",
                "PGHARVEST_SINKS_0_BEARERTOKEN", "t0ken", "PGHARVEST_SINKS_0_BATCHSIZE", "7")));
        BoundSink sink = new SinkEntries(registry).bind(environment).getFirst();
        assertThat(sink.settings()).isEqualTo(new RemoteWriteSinkProperties("https://vm.example/write", null, null,
                "t0ken", null, null, null, null));
        assertThat(sink.common().batchSize()).isEqualTo(7);
    }

    @Test
    void aDatabaseOrReceiverUrlShowsHostPortAndPathOnly() {
        List<BoundSink> bound = bind(
                Map.of("type", "postgres", "url", "postgresql://writer:s3cret@store.example:5433/metrics"
                        + "?sslmode=require&password=other"),
                Map.of("type", "postgres", "url", "jdbc:postgresql://db/m?user=u&password=p"),
                Map.of("type", "prometheus-remote-write", "url", "https://vm.example/api/v1/write?t=x",
                        "bearer-token", "token"),
                Map.of("type", "jsonfile"));
        Path dataDir = Path.of("/var/lib/pgharvest");
        assertThat(bound).extracting(sink -> sink.destination(dataDir)).containsExactly(
                "postgresql://store.example:5433/metrics", "postgresql://db/m", "https://vm.example/api/v1/write",
                "/var/lib/pgharvest/measurements.jsonl");
        assertThat(bound).extracting(BoundSink::name).containsExactly("postgres-0", "postgres-1",
                "prometheus-remote-write", "jsonfile");
        assertThat(bound.getFirst().settings().toString()).doesNotContain("s3cret").doesNotContain("other");
        assertThat(new SinkEntries(registry).defaults(List.of("prometheus")).getFirst().destination(dataDir))
                .isEqualTo("scrape endpoint http://*:9187/metrics");
    }

    @Test
    void twoSinksOfOneNameAreRefused() {
        assertThat(problems(Map.of("type", "jsonfile", "name", "out"), Map.of("type", "test-memory", "name", "out")))
                .containsExactly("pgharvest.sinks[1].name 'out' is used by another sink");
    }

    @SafeVarargs
    private List<BoundSink> bind(Map<String, String>... entries) {
        return new SinkEntries(registry).bind(environment(flatten(entries)));
    }

    @SafeVarargs
    private List<String> problems(Map<String, String>... entries) {
        return problemsOf(flatten(entries));
    }

    private List<String> problemsOf(Map<String, Object> properties) {
        var entries = new SinkEntries(registry);
        var environment = environment(properties);
        assertThatThrownBy(() -> entries.bind(environment)).isInstanceOf(SinkConfigurationException.class);
        try {
            entries.bind(environment);
            throw new AssertionError("unreachable");
        } catch (SinkConfigurationException e) {
            return e.problems();
        }
    }

    @SafeVarargs
    private static Map<String, Object> flatten(Map<String, String>... entries) {
        var properties = new LinkedHashMap<String, Object>();
        for (int i = 0; i < entries.length; i++) {
            int index = i;
            entries[i].forEach((option, value) -> properties.put("pgharvest.sinks[" + index + "]." + option, value));
        }
        return properties;
    }

    private static StandardEnvironment environment(Map<String, Object> properties) {
        var environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }
}
