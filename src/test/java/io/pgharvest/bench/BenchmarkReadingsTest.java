package io.pgharvest.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The harness's readers of /proc, jcmd and Prometheus output: the figures in docs/performance.md rest on them. */
@Tag("fast")
class BenchmarkReadingsTest {

    @Test
    void statFieldsAreCountedFromTheLastParenthesisOfTheCommandName() {
        String line = "4242 (java (main) x) S 17 4242 4242 0 -1 4194560 9 0 0 0 250 75 0 0 20 0 31 0 100 0 0";

        ProcStats.Stat stat = ProcStats.parseStat(4242, line);

        assertThat(stat.parentPid()).isEqualTo(17);
        assertThat(stat.cpuTicks()).isEqualTo(325);
        assertThat(stat.cpuSeconds()).isEqualTo(3.25);
        assertThat(stat.systemTicks()).isEqualTo(75);
    }

    @Test
    void statusGivesResidentPeakAndThreads() {
        String status = "Name:\tjava\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t23\n";

        assertThat(ProcStats.parseStatus(status)).isEqualTo(new ProcStats.Status(102400, 204800, 23));
    }

    @Test
    void heapInUseIsSummedOverTheGenerationsOfSerialAndReadFromG1() {
        String serial = """
                9025:
                DefNew     total 116224K, used 1000K [0x0000000687400000, 0x000000068f210000, 0x0000000704d50000)
                 eden space 103360K,   0% used [0x0000000687400000, 0x0000000687400000, 0x000000068d8f0000)
                Tenured    total 258048K, used 12847K [0x0000000704d50000, 0x0000000714950000, 0x0000000800000000)
                 the  space 258048K,   4% used [0x0000000704d50000, 0x00000007059dbd00, 0x0000000714950000)
                """;
        String g1 = """
                9110:
                garbage-first heap   total reserved 6172672K, committed 57344K, used 12798K [0x0000000687400000, 0x0000000800000000)
                 region size 4096K, 0 young (0K), 0 survivors (0K)
                """;

        assertThat(JvmTools.parseHeapUsedKb(serial)).isEqualTo(13847);
        assertThat(JvmTools.parseHeapUsedKb(g1)).isEqualTo(12798);
        assertThat(JvmTools.parseHeapUsedKb("no heap here")).isEqualTo(-1);
    }

    @Test
    void prometheusLabelValuesMayHoldBracesCommasAndQuotes() {
        PrometheusScrape.Sample sample = PrometheusScrape.parseLine(
                "http_server_requests_seconds_count{method=\"GET\",uri=\"/api/v1/sources/{name}\",x=\"a,\\\"b\\\"\"} 12.0");

        assertThat(sample.name()).isEqualTo("http_server_requests_seconds_count");
        assertThat(sample.labels()).isEqualTo(Map.of("method", "GET", "uri", "/api/v1/sources/{name}", "x", "a,\"b\""));
        assertThat(sample.value()).isEqualTo(12.0);
    }

    @Test
    void countersAreSummedOverSourcesPerOutcome() {
        PrometheusScrape scrape = PrometheusScrape.parse("""
                # HELP pgharvest_metric_fetches_total Metric executions by outcome
                pgharvest_metric_fetches_total{outcome="ok",source="a"} 10.0
                pgharvest_metric_fetches_total{outcome="ok",source="b"} 5.0
                pgharvest_metric_fetches_total{outcome="cached",source="b"} 2.0
                pgharvest_ticks_total{source="a"} 3.0
                """);

        assertThat(scrape.sumBy("pgharvest_metric_fetches_total", "outcome")).isEqualTo(Map.of("ok", 15.0, "cached", 2.0));
        assertThat(scrape.sum("pgharvest_ticks_total")).isEqualTo(3.0);
    }

    @Test
    void quantilesOfAWindowComeFromTheDifferenceOfCumulativeBuckets() {
        double[] bounds = {0.001, 0.01, 0.1, Double.POSITIVE_INFINITY};
        LagHistogram.Counts before = LagHistogram.Counts.ofCumulative(bounds, new long[] {50, 50, 50, 50}, 0);
        LagHistogram.Counts after = LagHistogram.Counts.ofCumulative(bounds, new long[] {148, 198, 200, 200}, 0.05);

        LagHistogram.Counts window = after.minus(before);

        assertThat(window.total()).isEqualTo(150);
        assertThat(window.quantile(0.5)).isEqualTo(0.001);
        assertThat(window.quantile(0.99)).isEqualTo(0.1);
        assertThat(window.maxBound()).isEqualTo(0.1);
    }

    @Test
    void recordedLagLandsInTheFirstBucketNotBelowIt() {
        var histogram = new LagHistogram();
        histogram.record(500_000);        // 0.5 ms
        histogram.record(2_000_000_000L); // 2 s

        LagHistogram.Counts counts = histogram.snapshot();

        assertThat(counts.quantile(0.5)).isEqualTo(0.001);
        assertThat(counts.maxBound()).isBetween(2.0, 2.5);
        assertThat(counts.maxSeconds()).isEqualTo(2.0);
    }

    @Test
    void presetIntervalsAreDividedAndRoundedUpAndMetricsThatCannotRunOnThePrimaryLeftOut() {
        var sql = new java.util.TreeMap<>(Map.of(14, "select 1"));
        var catalog = new CatalogMetrics(
                Map.of("a", new CatalogMetrics.Definition("a", sql, false, true),
                        "b", new CatalogMetrics.Definition("b", sql, false, true),
                        "c", new CatalogMetrics.Definition("c", sql, false, true),
                        "standby", new CatalogMetrics.Definition("standby", sql, false, false),
                        "new", new CatalogMetrics.Definition("new", new java.util.TreeMap<>(Map.of(16, "select 2")), false, true)),
                Map.of("p", Map.of("a", 30, "b", 5, "c", 120, "standby", 30, "new", 60)));

        assertThat(catalog.scaledPreset("p", 10, 15)).isEqualTo(Map.of("a", 3, "b", 1, "c", 12));
        assertThat(catalog.presetAt("p", 16, 30)).isEqualTo(Map.of("a", 30, "b", 30, "c", 30, "new", 30));
    }
}
