package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.ResultLimits;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * A metric whose result is larger than pgharvest keeps fails alone, with an error naming the
 * limit; the source's other metrics are collected on the same tick. Two million rows (which once
 * ran the process out of memory) stop at the row limit: the server sends one row past it. A result
 * past the byte limit (16 MB here) has its rows dropped as they arrive, on the same session.
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

    @Test
    void aFiftyMegabyteRowFailsTheMetricAloneNamingTheByteLimit() throws Exception {
        var status = oneTick("wide_row_src", "select repeat('x', 50 * 1024 * 1024) as big", bytesLimitedKit());
        assertThat(status.get("huge").lastError()).contains("metric huge").contains("more than 16MB of rows")
                .contains("pgharvest.reaper.max-result-bytes");
        assertThat(status.get("small").lastError()).isNull();
        assertThat(status.get("small").lastSuccess()).isNotNull();
    }

    @Test
    void ninetyThousandRowsOfOneKilobyteFailTheMetricAloneNamingTheByteLimit() throws Exception {
        var status = oneTick("many_rows_src", "select n, repeat('y', 1000) as v from generate_series(1, 90000) n",
                bytesLimitedKit());
        assertThat(status.get("huge").lastError()).contains("metric huge").contains("more than 16MB of rows")
                .contains("pgharvest.reaper.max-result-bytes");
        assertThat(status.get("small").lastError()).isNull();
    }

    @Test
    void theByteLimitIsASettingParsedOnceWithItsRangeChecked() {
        assertThat(bind(Map.of()).resultLimits()).isEqualTo(ResultLimits.DEFAULT);
        assertThat(bind(Map.of("pgharvest.reaper.max-result-bytes", "16MB")).resultLimits().maxBytes())
                .isEqualTo(16L * 1024 * 1024);
        for (String outside : List.of("512B", "2GB")) {
            assertThatThrownBy(() -> bind(Map.of("pgharvest.reaper.max-result-bytes", outside)))
                    .rootCause().hasMessageContaining("pgharvest.reaper.max-result-bytes must be between 1KB and 1GB");
        }
    }

    private static ReaperProperties bind(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings))
                .bindOrCreate("pgharvest.reaper", ReaperProperties.class);
    }

    /** The engine's test sessions with a 16 MB byte limit. */
    private static ReaperTestKit bytesLimitedKit() {
        return new ReaperTestKit(new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(30),
                Duration.ofSeconds(1), Duration.ofMinutes(1), false, true,
                new ResultLimits(ResultLimits.DEFAULT.maxRows(), 16L * 1024 * 1024))));
    }

    private static Map<String, MetricRuntimeStatus> oneTick(String name, String hugeSql) throws Exception {
        return oneTick(name, hugeSql, new ReaperTestKit());
    }

    private static Map<String, MetricRuntimeStatus> oneTick(String name, String hugeSql, ReaperTestKit kit)
            throws Exception {
        pg.createDatabase("result_limits_db");
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source(name, pg.connStr("result_limits_db"), Map.of("huge", 10, "small", 10)),
                List.of(metric("huge", hugeSql), metric("small", "select 1 as a"))), kit.context, timer);
        var source = ReaperTestKit.runFirstTick(reaper, timer);
        assertThat(source.connected()).as("the session outlived the round trip").isTrue();
        assertThat(source.lastConnectionError()).isNull();
        assertThat(kit.publisher.of(name, "small")).hasSize(1);
        assertThat(kit.publisher.of(name, "huge")).isEmpty();
        return reaper.status().metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, Function.identity()));
    }
}
