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
 * A metric whose result is larger than pgharvest keeps fails alone, with an error naming the
 * limit; the source's other metrics are collected on the same tick. Two million rows (which once
 * ran the process out of memory) stop at the row limit: the server sends one row past it.
 */
class ResultLimitsTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void twoMillionRowsFailTheMetricAloneNamingTheRowLimit() throws Exception {
        var status = oneTick("rows_src", "select n from generate_series(1, 2000000) n");
        assertThat(status.get("huge").lastError()).contains("metric huge").contains("more than 100000 rows")
                .contains("pgharvest.reaper.max-result-rows");
        assertThat(status.get("small").lastError()).isNull();
        assertThat(status.get("small").lastSuccess()).isNotNull();
    }

    private static Map<String, MetricRuntimeStatus> oneTick(String name, String hugeSql) throws Exception {
        pg.createDatabase("result_limits_db");
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source(name, pg.connStr("result_limits_db"), Map.of("huge", 10, "small", 10)),
                List.of(metric("huge", hugeSql), metric("small", "select 1 as a"))), kit.context, timer);
        ReaperTestKit.runFirstTick(reaper, timer);
        assertThat(kit.publisher.of(name, "small")).hasSize(1);
        assertThat(kit.publisher.of(name, "huge")).isEmpty();
        return reaper.status().metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, Function.identity()));
    }
}
