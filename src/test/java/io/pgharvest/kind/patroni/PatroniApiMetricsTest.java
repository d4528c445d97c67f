package io.pgharvest.kind.patroni;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class PatroniApiMetricsTest {

    /** As Patroni 3.0.2 (Debian 12) writes it, including its stray space before one label set. */
    private static final String PATRONI_3_0 = """
            # HELP patroni_version Patroni semver without periods.
            # TYPE patroni_version gauge
            patroni_version{scope="demo"} 030002
            patroni_postgres_running{scope="demo"} 1
            patroni_master{scope="demo"} 1
            patroni_primary{scope="demo"} 1
            patroni_xlog_location{scope="demo"} 50331744
            patroni_postgres_server_version {scope="demo"} 150018
            patroni_dcs_last_seen{scope="demo"} 1795384526
            """;

    @Test
    void eachDashboardFamilyBecomesAMetricWithItsValueColumnAndLabelsAsTags() {
        Instant at = Instant.parse("2026-11-22T22:00:00Z");
        List<Measurement> measurements = PatroniApiMetrics.parse(PATRONI_3_0, "pt_m1_postgres", Map.of("env", "x"), at);

        assertThat(measurements).extracting(Measurement::metric).containsExactly("patroni_version",
                "patroni_postgres_running", "patroni_primary", "patroni_xlog_location",
                "patroni_postgres_server_version", "patroni_dcs_last_seen");
        Measurement version = measurements.stream().filter(m -> m.metric().equals("patroni_postgres_server_version"))
                .findFirst().orElseThrow();
        assertThat(version.source()).isEqualTo("pt_m1_postgres");
        assertThat(version.time()).isEqualTo(at);
        assertThat(version.tags()).isEqualTo(Map.of("env", "x"));
        assertThat(version.rows()).singleElement().satisfies(row -> {
            assertThat(row.values()).isEqualTo(Map.of("patroni_postgres_server_version", 150018.0));
            assertThat(row.tags()).isEqualTo(Map.of("scope", "demo"));
        });
        assertThat(measurements.getFirst().rows().getFirst().values()).containsEntry("patroni_version", 30002.0);
    }

    @Test
    void labelsWithEscapesAndSeveralLabelsAreRead() {
        List<Measurement> measurements = PatroniApiMetrics.parse(
                "patroni_replica{scope=\"a \\\"b\\\"\",name=\"m2\"} 1 1700000000000\nnot_patroni 3\n", "s", Map.of(),
                Instant.EPOCH);

        assertThat(measurements).singleElement().satisfies(m ->
                assertThat(m.rows().getFirst().tags()).isEqualTo(Map.of("scope", "a \"b\"", "name", "m2")));
    }

    @Test
    void theMetricsPageSitsBesideTheApiUrl() {
        assertThat(PatroniApiMetrics.metricsUri("http://10.0.0.1:8008/patroni").toString())
                .isEqualTo("http://10.0.0.1:8008/metrics");
    }

    @Test
    void etcdPrefixRangeEndsAfterTheLastKeyWithThePrefix() {
        assertThat(new String(EtcdReader.rangeEnd("/service/demo/".getBytes()))).isEqualTo("/service/demo0");
        assertThat(EtcdReader.rangeEnd(new byte[] {'a', (byte) 0xff})).containsExactly('b');
    }
}
