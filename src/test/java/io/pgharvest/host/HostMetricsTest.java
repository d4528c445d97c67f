package io.pgharvest.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Host metrics for a server on this machine: pgwatch's keys and tags, plausible values (the
 * expectations are psutil's meanings as pgwatch's dashboards read them), and nothing for a
 * server elsewhere.
 */
class HostMetricsTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final HostProbe probe = new HostProbe();
    private static Connection connection;

    @BeforeAll
    static void connect() throws Exception {
        connection = pg.connect("postgres");
    }

    @AfterAll
    static void close() throws Exception {
        connection.close();
    }

    @Test
    void cpuLoadHasPgwatchKeysAndNonNegativeLoadAverages() throws Exception {
        Map<String, Object> row = single(new CpuLoadMetric(probe));

        assertThat(row).containsOnlyKeys("load_1min", "load_5min", "load_15min");
        assertThat(row.values()).allSatisfy(v -> assertThat((Double) v).isGreaterThanOrEqualTo(0.0));
    }

    @Test
    void psutilCpuSharesAddUpToAHundredPercentOverTheInterval() throws Exception {
        var collector = new PsutilCpuMetric(probe).newCollector();
        collector.collect(local());
        spin(Duration.ofMillis(300)); // some user time between the two reads
        Map<String, Object> row = collector.collect(local()).getFirst().values();

        assertThat(row).containsOnlyKeys("cpu_utilization", "load_1m_norm", "load_1m", "load_5m_norm", "load_5m",
                "user", "system", "idle", "iowait", "irqs", "other");
        double shares = List.of("user", "system", "idle", "iowait", "irqs", "other").stream()
                .mapToDouble(k -> (Double) row.get(k)).sum();
        assertThat(shares).isBetween(0.0, 100.1); // nice time is in none of pgwatch's keys
        assertThat((Double) row.get("cpu_utilization")).isBetween(0.0, 100.0);
        assertThat((Double) row.get("load_1m")).isGreaterThanOrEqualTo((Double) row.get("load_1m_norm"));
    }

    @Test
    void psutilMemReportsTotalAvailableAndSwapInBytes() throws Exception {
        Map<String, Object> row = single(new PsutilMemMetric(probe));

        assertThat(row).containsOnlyKeys("total", "used", "free", "buff_cache", "available", "percent",
                "swap_total", "swap_used", "swap_free", "swap_percent");
        long total = (Long) row.get("total");
        assertThat(total).isGreaterThan(64L << 20);
        assertThat((Long) row.get("available")).isPositive().isLessThanOrEqualTo(total);
        assertThat((Long) row.get("free")).isPositive().isLessThanOrEqualTo(total); // Linux: /proc/meminfo
        assertThat((Long) row.get("used") + (Long) row.get("free") + (Long) row.get("buff_cache")).isEqualTo(total);
        assertThat((Double) row.get("percent")).isBetween(0.0, 100.0);
        assertThat((Long) row.get("swap_used") + (Long) row.get("swap_free")).isEqualTo(row.get("swap_total"));
    }

    @Test
    void psutilDiskShowsTheFileSystemOfTheDataDirectoryAndItsWal() throws Exception {
        String dataDirectory = pg.queryString("postgres", "show data_directory");
        List<Measurement.Row> rows = new PsutilDiskMetric().newCollector().collect(local());

        assertThat(rows).extracting(r -> r.tags().get("dir_or_tablespace")).contains("data_directory", "pg_wal");
        Measurement.Row data = rows.stream().filter(r -> r.tags().get("dir_or_tablespace").equals("data_directory"))
                .findFirst().orElseThrow();
        assertThat(data.tags()).containsEntry("path", dataDirectory);
        assertThat(data.values()).containsOnlyKeys("total", "used", "free", "percent");
        var store = Files.getFileStore(Path.of(dataDirectory));
        assertThat(data.values().get("total")).isEqualTo(store.getTotalSpace());
        assertThat((Long) data.values().get("free")).isPositive();
        assertThat((Double) data.values().get("percent")).isBetween(0.0, 100.0);
    }

    @Test
    void psutilDiskIoTotalCountsSinceBoot() throws Exception {
        Map<String, Object> row = single(new PsutilDiskIoMetric(probe));

        assertThat(row).containsOnlyKeys("read_count", "write_count", "read_bytes", "write_bytes");
        assertThat(row.values()).allSatisfy(v -> assertThat((Long) v).isNotNegative());
    }

    @Test
    void noHostMetricIsCollectedForAServerOnAnotherMachine() {
        var remote = new NativeTarget("remote", "postgres", pg.majorVersion(), "192.0.2.10:5432", false,
                new JdbcSqlReader(connection), Duration.ofSeconds(60), Instant.now(), null);
        for (NativeMetric metric : List.of(new CpuLoadMetric(probe), new PsutilCpuMetric(probe),
                new PsutilMemMetric(probe), new PsutilDiskMetric(), new PsutilDiskIoMetric(probe))) {
            assertThatThrownBy(() -> metric.newCollector().collect(remote)).as(metric.name())
                    .isInstanceOf(NativeMetric.Unavailable.class)
                    .hasMessageContaining("(192.0.2.10:5432) is not on the machine pgharvest runs on");
        }
    }

    private static Map<String, Object> single(NativeMetric metric) throws Exception {
        List<Measurement.Row> rows = metric.newCollector().collect(local());
        assertThat(rows).hasSize(1);
        return rows.getFirst().values();
    }

    private static NativeTarget local() {
        return new NativeTarget("local", "postgres", pg.majorVersion(), "127.0.0.1:" + pg.port(), true,
                new JdbcSqlReader(connection), Duration.ofSeconds(60), Instant.now(), null);
    }

    private static void spin(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        long x = 0;
        while (System.nanoTime() < end) {
            x += System.nanoTime() % 7;
        }
        assertThat(x).isNotNegative();
    }
}
