package io.pgharvest.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.config.plugin.PluginConfigurationException;
import io.pgharvest.history.postgres.PostgresHistorySettings;
import io.pgharvest.sink.dispatch.ConfiguredSinks;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/**
 * {@code pgharvest.history} binding: entries by type with their kind's options, every problem named
 * with its entry and option at once, and, without entries, a postgres reader for each postgres sink.
 */
@Tag("fast")
class HistoryEntriesTest {

    private final HistoryEntries entries = new HistoryEntries(HistoryReaderPlugin.registry());

    @Test
    void anEntryBindsItsKindsOptions() {
        var environment = new MockEnvironment()
                .withProperty("pgharvest.history[0].type", "postgres")
                .withProperty("pgharvest.history[0].url", "postgresql://ro@store:5432/metrics")
                .withProperty("pgharvest.history[0].pool-size", "3")
                .withProperty("pgharvest.history[0].retention", "30d");
        List<HistoryEntries.BoundReader> bound = entries.bind(environment);
        assertThat(bound).hasSize(1);
        assertThat(bound.getFirst().name()).isEqualTo("postgres");
        assertThat(bound.getFirst().settings()).isEqualTo(new PostgresHistorySettings(
                "postgresql://ro@store:5432/metrics", null, null, 3, Duration.ofSeconds(10), Duration.ofDays(30)));
    }

    @Test
    void aSourceIsReadFromTheFirstEntryThatNamesItOrNamesNone() {
        var environment = new MockEnvironment()
                .withProperty("pgharvest.history[0].type", "prometheus")
                .withProperty("pgharvest.history[0].url", "http://prometheus:9090")
                .withProperty("pgharvest.history[0].sources[0]", "orders")
                .withProperty("pgharvest.history[0].retention", "7d")
                .withProperty("pgharvest.history[1].type", "prometheus")
                .withProperty("pgharvest.history[1].url", "http://victoria-metrics:8428")
                .withProperty("pgharvest.history[1].retention", "30d");
        List<HistoryEntries.BoundReader> bound = entries.bind(environment);
        assertThat(bound.get(0).sources()).containsExactly("orders");
        assertThat(bound.get(1).sources()).isEmpty();
        var assigned = bound.stream().map(entry -> new HistoryReaders.Assigned(
                entry.plugin().createBound(entry.name(), entry.settings()), entry.sources())).toList();
        try (var readers = HistoryReaders.assigned(assigned, () -> null, Duration.ofSeconds(1))) {
            assertThat(readers.storeOf("orders").orElseThrow().retention()).isEqualTo(Duration.ofDays(7));
            assertThat(readers.storeOf("billing").orElseThrow().retention()).isEqualTo(Duration.ofDays(30));
        }
        var onlyOrders = new MockEnvironment()
                .withProperty("pgharvest.history[0].type", "prometheus")
                .withProperty("pgharvest.history[0].url", "http://prometheus:9090")
                .withProperty("pgharvest.history[0].sources[0]", "orders");
        var single = entries.bind(onlyOrders).getFirst();
        try (var readers = HistoryReaders.assigned(List.of(new HistoryReaders.Assigned(
                single.plugin().createBound(single.name(), single.settings()), single.sources())), () -> null,
                Duration.ofSeconds(1))) {
            assertThat(readers.storeOf("billing")).as("a source no entry answers has no store").isEmpty();
        }
    }

    @Test
    void aBlankSourceOfAnEntryIsNamed() {
        var environment = new MockEnvironment()
                .withProperty("pgharvest.history[0].type", "prometheus")
                .withProperty("pgharvest.history[0].url", "http://prometheus:9090")
                .withProperty("pgharvest.history[0].sources[0]", " ");
        assertThatThrownBy(() -> entries.bind(environment)).isInstanceOf(PluginConfigurationException.class)
                .hasMessageContaining("pgharvest.history[0].sources[0] must name a source");
    }

    @Test
    void anUnknownTypeAnOptionOfNoneAndABadValueAreAllNamedWithTheirEntry() {
        var environment = new MockEnvironment()
                .withProperty("pgharvest.history[0].type", "influx")
                .withProperty("pgharvest.history[1].type", "postgres")
                .withProperty("pgharvest.history[1].url", "postgresql://user:hunter2@store/metrics")
                .withProperty("pgharvest.history[1].bogus", "x")
                .withProperty("pgharvest.history[1].pool-size", "40");
        assertThatThrownBy(() -> entries.bind(environment)).isInstanceOf(PluginConfigurationException.class)
                .hasMessageContaining("pgharvest.history[0].type: this build has no history reader of type 'influx'"
                        + " (it has postgres, prometheus)")
                .hasMessageContaining("pgharvest.history[1].bogus is not an option of any history reader (the options of a postgres"
                        + " history reader are url, user, password, pool-size, statement-timeout, retention)")
                .hasMessageContaining("pgharvest.history[1].pool-size must be 1 to 16 (was 40)")
                .message().doesNotContain("hunter2");
    }

    @Test
    void withoutEntriesAPostgresSinkGivesAReaderOfItsDatabaseWithItsRetention() {
        var sink = new ConfiguredSinks.Entry("pgharvest.sinks[1]", "storage", "postgres",
                PostgresSinkProperties.of("postgresql://w@store/metrics").withRetention(Duration.ofDays(21)));
        List<HistoryEntries.BoundReader> derived = entries.derived(List.of(sink));
        assertThat(derived).singleElement().satisfies(reader -> {
            assertThat(reader.name()).isEqualTo("storage");
            assertThat(reader.settings()).isEqualTo(new PostgresHistorySettings("postgresql://w@store/metrics", null,
                    null, null, null, Duration.ofDays(21)));
        });
        assertThat(entries.bind(new MockEnvironment())).isEmpty();
    }
}
