package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pgharvest.history.HistoryReader;
import io.pgharvest.history.postgres.PostgresHistoryPlugin;
import io.pgharvest.history.postgres.PostgresHistorySettings;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The same hour of measurements, recorded by the recent window and written through the postgres
 * sink: read back at one collection a bucket, every series the window draws (gauges, counters as
 * rates, across a counter reset) has the same points and values from the store.
 */
class WindowAndStoreAgreeTest {

    private static final TestPostgres PG = TestPostgres.shared();

    @Test
    void anHourReadFromTheStoreEqualsTheWindowsHourPointForPointAcrossAReset() throws Exception {
        String db = "window_store_" + ProcessHandle.current().pid();
        PG.createDatabase(db);
        Instant end = Instant.now().truncatedTo(ChronoUnit.MINUTES);
        Instant start = end.minus(Duration.ofMinutes(60));
        var measurements = new ArrayList<Measurement>();
        long commits = 0;
        for (int m = 0; m < 60; m++) {
            commits = m == 37 ? 5 : commits + 100 + (m % 7) * 13; // a reset (the server restarted) at minute 37
            measurements.add(new Measurement("agree", "db_stats", start.plus(Duration.ofMinutes(m)),
                    List.of(new Measurement.Row(Map.of("xact_commit", commits, "numbackends", 3 + m % 5), Map.of())),
                    Map.of()));
            measurements.add(new Measurement("agree", "backends", start.plus(Duration.ofMinutes(m)),
                    List.of(new Measurement.Row(Map.of("total", 10 + m % 4), Map.of())), Map.of()));
        }
        var window = new RecentWindow(new WindowLimits(3_600_000 * 2L, 720, 100), 1 << 20,
                Clock.fixed(end, ZoneOffset.UTC));
        window.record(measurements);
        try (var threads = new SinkPoolThreads()) {
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "agree", PostgresSinkProperties.of(
                    PG.connStr(db)), threads, Clock.systemUTC());
            try {
                sink.write(measurements);
            } finally {
                sink.close();
            }
        }
        try (HistoryReader reader = new PostgresHistoryPlugin().create("agree", new PostgresHistorySettings(
                PG.connStr(db), null, null, null, null, null))) {
            var range = new TimeRange(start, end, Duration.ofMinutes(1));
            var stored = new ArrayList<Series>();
            for (String metric : List.of("db_stats", "backends")) {
                stored.addAll(reader.series("agree", range, metric, ChartedColumns.of(metric), Map.of()));
            }
            List<Series> memory = window.read("agree", start.toEpochMilli(), end.toEpochMilli() - 1,
                    Set.of("db_stats", "backends"));
            assertThat(stored).extracting(Series::column).containsExactlyInAnyOrderElementsOf(
                    memory.stream().map(Series::column).toList());
            for (Series fromWindow : memory) {
                Series fromStore = stored.stream().filter(s -> s.column().equals(fromWindow.column())).findFirst()
                        .orElseThrow();
                assertThat(fromStore.kind()).isEqualTo(fromWindow.kind());
                assertThat(fromStore.times()).as(fromWindow.column()).containsExactly(fromWindow.times());
                for (int i = 0; i < fromWindow.values().length; i++) {
                    assertThat(fromStore.values()[i]).as(fromWindow.column() + " #" + i)
                            .isCloseTo(fromWindow.values()[i], within(1e-9));
                }
            }
            Series rate = memory.stream().filter(s -> s.column().equals("xact_commit")).findFirst().orElseThrow();
            assertThat(rate.times()).hasSize(58) // no rate for the first point nor across the reset
                    .doesNotContain(start.plus(Duration.ofMinutes(37)).toEpochMilli());
        }
    }
}
