package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Columns whose output names meet (two of exactly one name; names that become one once reduced to
 * {@code [a-zA-Z0-9_]}, what the Prometheus scrape and remote-write sinks can carry; tags renamed
 * away from pgharvest's own labels; a counter's {@code _total}) fail their metric in every sink,
 * with an error naming both columns: no sink silently keeps one value of several, and nothing of
 * the failed metric is published to the sinks. The source's other metrics are collected on the
 * same tick. Real PostgreSQL, through the real reaper.
 */
class OutputNameClashTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void collidingColumnsFailTheirMetricNamingBothAndTheOthersAreCollected() throws Exception {
        pg.createDatabase("name_clash_db");
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source("clash_src", pg.connStr("name_clash_db"), Map.of("spaced", 10, "accented", 10, "tagged", 10,
                        "plain", 10)),
                List.of(metric("spaced", "select 1 as \"a b\", 2 as \"a-b\", 3 as c"),
                        metric("accented", "select 1 as \"é\", 2 as \"ü\""),
                        metric("tagged", "select 'x' as \"tag_db name\", 'y' as \"tag_db-name\", 1 as v"),
                        metric("plain", "select 1 as a_b, 'x' as tag_job, 2 as \"Mixed\""))),
                kit.context, timer);
        ReaperTestKit.runFirstTick(reaper, timer);
        Map<String, MetricRuntimeStatus> status = reaper.status().metrics().stream()
                .collect(Collectors.toMap(MetricRuntimeStatus::name, Function.identity()));

        assertThat(status.get("spaced").lastError()).contains("\"a b\"").contains("\"a-b\"").contains("a_b");
        assertThat(status.get("accented").lastError()).contains("\"é\"").contains("\"ü\"");
        assertThat(status.get("tagged").lastError()).contains("tag_db name").contains("tag_db-name")
                .contains("db_name");
        for (String failed : List.of("spaced", "accented", "tagged")) {
            assertThat(kit.publisher.of("clash_src", failed)).as(failed).isEmpty();
        }
        assertThat(status.get("plain").lastError()).isNull();
        assertThat(kit.publisher.of("clash_src", "plain")).hasSize(1);
    }

    @Test
    void repeatedRenamedAndCounterNamesFailTheirMetricNamingBothAndNothingOfThemIsPublished() throws Exception {
        pg.createDatabase("name_repeat_db");
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        List<MetricDefinition> metrics = List.of(
                metric("twice", "select 1 as a, 2 as a, 3 as b"),
                metric("tags_twice", "select 1 as v, 'p' as tag_x, 'q' as tag_x"),
                metric("epoch_twice", "select 1::int8 as epoch_ns, 1 as v, 2::int8 as epoch_ns"),
                metric("renamed", "select 'p' as tag_source, 'q' as tag_tag_source, 1 as v"),
                metric("reserved", "select 'p' as \"tag___name__\", 'q' as tag_tag___name__, 1 as v"),
                counters("counters", "select 1 as x, 2 as x_total"),
                metric("gauges", "select 1 as x, 2 as x_total"),
                metric("tag_beside_value", "select 'p' as tag_a, 1 as a"));
        Map<String, Integer> intervals = metrics.stream().collect(Collectors.toMap(MetricDefinition::name, m -> 10));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source("repeat_src", pg.connStr("name_repeat_db"), intervals), metrics), kit.context, timer);
        ReaperTestKit.runFirstTick(reaper, timer);
        Map<String, MetricRuntimeStatus> status = reaper.status().metrics().stream()
                .collect(Collectors.toMap(MetricRuntimeStatus::name, Function.identity()));

        assertThat(status.get("twice").lastError()).contains("columns 1 and 2 are both named \"a\"");
        assertThat(status.get("tags_twice").lastError()).contains("columns 2 and 3 are both named \"tag_x\"");
        assertThat(status.get("epoch_twice").lastError()).contains("columns 1 and 3 are both named \"epoch_ns\"");
        assertThat(status.get("renamed").lastError()).contains("\"tag_source\" and \"tag_tag_source\"")
                .contains("label \"tag_source\"");
        assertThat(status.get("reserved").lastError()).contains("\"tag___name__\" and \"tag_tag___name__\"")
                .contains("label \"tag___name__\"");
        assertThat(status.get("counters").lastError()).contains("\"x\" and \"x_total\"")
                .contains("\"pgharvest_counters_x\"");
        for (String failed : List.of("twice", "tags_twice", "epoch_twice", "renamed", "reserved", "counters")) {
            assertThat(status.get(failed).lastError()).as(failed).contains("rename one of them");
            assertThat(kit.publisher.of("repeat_src", failed)).as(failed).isEmpty();
        }

        // As gauges, x and x_total are two families with one series each: nothing meets.
        assertThat(status.get("gauges").lastError()).isNull();
        assertThat(kit.publisher.of("repeat_src", "gauges")).singleElement()
                .satisfies(m -> assertThat(m.rows().getFirst().values()).containsEntry("x", 1L).containsEntry("x_total", 2L));
        // A tag and a value of one name are kept apart in every sink (label a on family ..._a; tag_a
        // beside a in a JSON row; tag_data and data in PostgreSQL): delivered, both values kept.
        assertThat(status.get("tag_beside_value").lastError()).isNull();
        Measurement.Row row = kit.publisher.of("repeat_src", "tag_beside_value").getFirst().rows().getFirst();
        assertThat(row.values()).containsEntry("a", 1L);
        assertThat(row.tags()).containsEntry("a", "p");
    }

    /** A test metric whose every column is a counter (no gauges declared). */
    private static MetricDefinition counters(String name, String sql) {
        return new MetricDefinition(name, "test metric " + name, Map.of(10, sql), List.of(), false, NodeStatus.ANY,
                null, null, null);
    }
}
