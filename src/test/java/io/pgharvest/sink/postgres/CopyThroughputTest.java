package io.pgharvest.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Measures how many measurement rows per second the PostgreSQL sink stores (COPY, one
 * transaction per batch) on this machine, against a server with fsync on. Prints the figure; no
 * timing is asserted. Size with {@code -Dpgharvest.test.copy-rows=N} (default 200,000). A measurement,
 * not part of the default suite: {@code ./mvnw -B verify -Dtest=CopyThroughputTest -Dtest.excludedGroups=}.
 */
@Tag("benchmark")
class CopyThroughputTest {

    private static final int ROWS = Integer.getInteger("pgharvest.test.copy-rows", 200_000);
    private static final int ROWS_PER_MEASUREMENT = 10;
    private static final int MEASUREMENTS_PER_BATCH = 500;

    @Test
    void copyThroughputIsMeasuredAndEveryRowIsStored() throws Exception {
        try (TestPostgres pg = TestPostgres.start(Map.of("fsync", "on", "synchronous_commit", "on"));
                SinkPoolThreads threads = new SinkPoolThreads()) {
            pg.createDatabase("throughput");
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "throughput",
                    PostgresSinkProperties.of(pg.connStr("throughput")), threads, Clock.systemUTC());
            try {
                sink.write(batch(0, 0)); // schema migration and table creation stay out of the figure
                int batches = Math.max(1, ROWS / (ROWS_PER_MEASUREMENT * MEASUREMENTS_PER_BATCH));
                long started = System.nanoTime();
                for (int b = 1; b <= batches; b++) {
                    sink.write(batch(b, b * MEASUREMENTS_PER_BATCH));
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                long rows = (long) batches * MEASUREMENTS_PER_BATCH * ROWS_PER_MEASUREMENT;
                System.out.printf("COPY throughput: %,d rows (%,d measurements of %d rows, %d per batch) in %.2f s = "
                                + "%,.0f rows/s, %,.0f measurements/s%n", rows, rows / ROWS_PER_MEASUREMENT,
                        ROWS_PER_MEASUREMENT, MEASUREMENTS_PER_BATCH, seconds, rows / seconds,
                        rows / ROWS_PER_MEASUREMENT / seconds);

                try (Connection c = pg.connect("throughput"); Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM public.table_stats")) {
                    rs.next();
                    assertThat(rs.getLong(1)).isEqualTo(rows + (long) MEASUREMENTS_PER_BATCH * ROWS_PER_MEASUREMENT);
                }
            } finally {
                sink.close();
            }
        }
    }

    /** Measurements shaped like pgwatch's table_stats: one row per table, a dozen counters. */
    private static List<Measurement> batch(int batch, int firstSource) {
        Instant now = Instant.now();
        var measurements = new ArrayList<Measurement>(MEASUREMENTS_PER_BATCH);
        for (int m = 0; m < MEASUREMENTS_PER_BATCH; m++) {
            var rows = new ArrayList<Measurement.Row>(ROWS_PER_MEASUREMENT);
            for (int r = 0; r < ROWS_PER_MEASUREMENT; r++) {
                var values = new LinkedHashMap<String, Object>();
                values.put("table_size_b", 8192L * (batch + r));
                values.put("total_relation_size_b", 16384L * (batch + r));
                values.put("seq_scan", (long) batch * 3 + r);
                values.put("seq_tup_read", (long) batch * 1000 + r);
                values.put("idx_scan", (long) batch * 7 + r);
                values.put("n_tup_ins", (long) batch * 11);
                values.put("n_tup_upd", (long) batch * 5);
                values.put("n_tup_del", (long) batch);
                values.put("n_live_tup", 100_000L + r);
                values.put("n_dead_tup", 42L);
                values.put("vacuum_count", 3);
                values.put("autovacuum_count", 17);
                values.put("seconds_since_last_vacuum", 3600.5);
                rows.add(new Measurement.Row(values, Map.of("table_full_name", "public.table_" + r)));
            }
            measurements.add(new Measurement("source-" + ((firstSource + m) % 100), "table_stats", now, rows,
                    Map.of("env", "bench")));
        }
        return measurements;
    }
}
