package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Columns whose names become the same output name once reduced to {@code [a-zA-Z0-9_]} (what the
 * Prometheus scrape and remote-write sinks can carry) fail their metric in every sink, with an
 * error naming both columns: no sink silently keeps one value of several. The source's other
 * metrics are collected on the same tick. Real PostgreSQL, through the real reaper.
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
}
