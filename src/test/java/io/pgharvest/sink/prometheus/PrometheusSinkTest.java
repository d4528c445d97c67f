package io.pgharvest.sink.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class PrometheusSinkTest {

    private static final MetricDefinition DB_STATS = new MetricDefinition("db_stats", "Database statistics\nmore",
            Map.of(11, "select 1"), List.of("numbackends"), false, null, null, null, null);
    private static final MetricCatalog CATALOG =
            name -> name.equals("db_stats") ? Optional.of(DB_STATS) : Optional.empty();

    private final MutableClock clock = new MutableClock(Instant.parse("2024-05-17T10:00:00Z"));
    private final HttpClient http = HttpClient.newHttpClient();
    private PrometheusSink sink;

    @AfterEach
    void close() {
        if (sink != null) {
            sink.close();
        }
        http.close();
    }

    @Test
    void theEndpointParsesWithPromtoolAndHoldsTheExpectedSeriesAndLabels() throws Exception {
        sink = start(Duration.ofMinutes(10));
        sink.write(sampleMeasurements());

        String body = scrape("/metrics").body();

        Promtool.Check check = Promtool.checkMetrics(body);
        assertThat(check.output()).as("promtool check metrics output for:%n%s", body).isEmpty();
        assertThat(check.exitCode()).isZero();

        assertThat(body).contains(
                "# TYPE pgharvest_db_stats_xact_commit_total counter",
                "pgharvest_db_stats_xact_commit_total{env=\"prod\",source=\"db1\"} 1234.0",
                "pgharvest_db_stats_xact_commit_total{source=\"db2\",tag_source=\"spoof\"} 99.0",
                "# TYPE pgharvest_db_stats_numbackends gauge",
                "pgharvest_db_stats_numbackends{env=\"prod\",source=\"db1\"} 3.0",
                "# HELP pgharvest_db_stats_numbackends Column numbackends of metric db_stats: Database statistics",
                "pgharvest_table_stats_seq_scan{source=\"db1\",table_name=\"public.orders\"} 10.0",
                "pgharvest_table_stats_seq_scan{source=\"db1\",table_name=\"public.items\"} 20.0",
                "pgharvest_table_stats_is_partition{source=\"db1\",table_name=\"public.items\"} 1.0",
                "pgharvest_instance_up{source=\"db1\"} 1.0",
                "pgharvest_instance_up{source=\"db2\"} 0.0",
                "pgharvest_odd_names_value{my_tag=\"x\",source=\"db1\",tag___internal=\"y\"} NaN");
        assertThat(body).doesNotContain("relname", "epoch_ns", "pgharvest_table_stats_table_name");
    }

    @Test
    void seriesOfASourceThatStoppedReportingDisappearAfterTheStalenessWindow() throws Exception {
        sink = start(Duration.ofMinutes(5));
        sink.write(List.of(up("db1", 1), up("db2", 1)));
        clock.advance(Duration.ofMinutes(3));
        sink.write(List.of(up("db1", 1)));
        clock.advance(Duration.ofMinutes(3));

        String body = scrape("/metrics").body();

        assertThat(body).contains("pgharvest_instance_up{source=\"db1\"} 1.0")
                .doesNotContain("source=\"db2\"");
    }

    @Test
    void aSlowMetricStaysBetweenItsReportsLongerThanTheWindow() throws Exception {
        sink = start(Duration.ofMinutes(5));
        sink.write(List.of(up("slow", 1)));
        clock.advance(Duration.ofMinutes(10));
        sink.write(List.of(up("slow", 1)));
        clock.advance(Duration.ofMinutes(15));

        assertThat(scrape("/metrics").body()).contains("pgharvest_instance_up{source=\"slow\"} 1.0");
        clock.advance(Duration.ofMinutes(6));
        assertThat(scrape("/metrics").body()).doesNotContain("slow");
    }

    @Test
    void inAFleetEverySeriesCarriesTheInstanceIdWhichATagCannotOverride() throws Exception {
        sink = PrometheusSink.create("pgharvest.sinks[0]", "prometheus", settings(Duration.ofMinutes(5), null), CATALOG, clock,
                "collector-2");
        sink.write(List.of(new Measurement("db1", "instance_up", clock.instant(),
                List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of("pgharvest_instance", "forged"))));

        assertThat(scrape("/metrics").body()).contains(
                "pgharvest_instance_up{pgharvest_instance=\"collector-2\",source=\"db1\",tag_pgharvest_instance=\"forged\"} 1.0");
    }

    @Test
    void anOlderMeasurementDeliveredLateDoesNotReplaceANewerOne() throws Exception {
        sink = start(Duration.ofMinutes(5));
        Instant now = clock.instant();
        sink.write(List.of(new Measurement("db1", "instance_up", now,
                List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of())));
        sink.write(List.of(new Measurement("db1", "instance_up", now.minusSeconds(60),
                List.of(new Measurement.Row(Map.of("instance_up", 0), null)), Map.of())));

        assertThat(scrape("/metrics").body()).contains("pgharvest_instance_up{source=\"db1\"} 1.0");
    }

    @Test
    void onlyTheConfiguredPathIsServed() throws Exception {
        sink = PrometheusSink.create("pgharvest.sinks[0]", "prometheus", settings(Duration.ofMinutes(5), "/custom"), CATALOG, clock);
        sink.write(List.of(up("db1", 1)));

        assertThat(scrape("/metrics").statusCode()).isEqualTo(404);
        assertThat(scrape("/custom").statusCode()).isEqualTo(200);
        assertThat(scrape("/custom").headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
    }

    @Test
    void aTakenPortFailsWithTheNameOfTheProperty() {
        sink = start(Duration.ofMinutes(5));
        var clash = new PrometheusSinkProperties(sink.port(), null, null, Duration.ofMinutes(5));

        assertThatThrownBy(() -> PrometheusSink.create("pgharvest.sinks[2]", "prometheus-2", clash, CATALOG, clock))
                .hasMessageStartingWith("pgharvest.sinks[2].port: cannot listen on port " + sink.port());
    }

    @Test
    void theEndpointListensOnlyOnTheConfiguredAddress() throws Exception {
        var loopback = new PrometheusSinkProperties(0, null, "127.0.0.1", Duration.ofMinutes(5));
        sink = PrometheusSink.create("pgharvest.sinks[0]", "prometheus", loopback, CATALOG, clock);

        assertThat(sink.address()).isEqualTo("127.0.0.1");
        assertThat(scrape("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void aDatabaseOfFiveThousandStatementsGivesTheTopNPlusOtherSeriesPerFieldAndOneTextSeriesPerTopStatement()
            throws Exception {
        sink = start(Duration.ofMinutes(10));
        sink.write(List.of(queryStats(clock.instant())));
        clock.advance(Duration.ofSeconds(30));
        var texts = new ArrayList<Measurement.Row>();
        for (int id = 1; id <= 5_000; id++) {
            texts.add(new Measurement.Row(Map.of("query", "select $1 from t" + id), Map.of("queryid", "" + id)));
        }
        sink.write(List.of(new Measurement("db1", "query_texts", clock.instant(), texts, Map.of())));
        clock.advance(Duration.ofSeconds(30));
        sink.write(List.of(queryStats(clock.instant())));

        String body = scrape("/metrics").body();

        assertThat(body.lines().filter(l -> l.startsWith("pgharvest_query_stats_calls{"))).hasSize(51);
        assertThat(body.lines().filter(l -> l.startsWith("pgharvest_query_text_info{"))).hasSize(50);
        assertThat(body).contains(
                "pgharvest_query_stats_calls{dbname=\"app\",queryid=\"7\",source=\"db1\",toplevel=\"true\",user=\"u\"} 7.0",
                "pgharvest_query_stats_calls{dbname=\"app\",queryid=\"other\",source=\"db1\"} 4950.0",
                "pgharvest_query_text_info{dbname=\"app\",query=\"select $1 from t7\",queryid=\"7\",source=\"db1\"} 1.0");
        assertThat(body.lines().filter(l -> l.startsWith("pgharvest_query_stats_") && l.contains("query=")))
                .as("no field carries the text").isEmpty();
        Promtool.Check check = Promtool.checkMetrics(body);
        assertThat(check.exitCode()).as(check.output()).isZero();
    }

    /** query_stats of one read: the top 50 statements (query IDs 1..50) and one other row. */
    private static Measurement queryStats(Instant time) {
        var rows = new ArrayList<Measurement.Row>();
        for (int id = 1; id <= 50; id++) {
            rows.add(new Measurement.Row(Map.of("calls", id, "total_exec_time", 1.5 * id),
                    Map.of("queryid", "" + id, "dbname", "app", "user", "u", "toplevel", "true")));
        }
        rows.add(new Measurement.Row(Map.of("calls", 4950, "total_exec_time", 10.0),
                Map.of("queryid", "other", "dbname", "app")));
        return new Measurement("db1", "query_stats", time, rows, Map.of());
    }

    private PrometheusSink start(Duration staleness) {
        return PrometheusSink.create("pgharvest.sinks[0]", "prometheus", settings(staleness, null), CATALOG, clock);
    }

    private static PrometheusSinkProperties settings(Duration staleness, String path) {
        return new PrometheusSinkProperties(0, path, null, staleness);
    }

    private HttpResponse<String> scrape(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sink.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private List<Measurement> sampleMeasurements() {
        Instant now = clock.instant();
        var dbStats = new LinkedHashMap<String, Object>();
        dbStats.put("numbackends", 3);
        dbStats.put("xact_commit", 1234L);
        dbStats.put("datname", "shop");
        dbStats.put("epoch_ns", 1_715_940_000_000_000_000L);
        var orders = new LinkedHashMap<String, Object>();
        orders.put("seq_scan", 10);
        orders.put("relname", "orders");
        var items = new LinkedHashMap<String, Object>();
        items.put("seq_scan", 20);
        items.put("is_partition", true);
        var odd = new LinkedHashMap<String, Object>();
        odd.put("value", Double.NaN);
        return List.of(
                new Measurement("db1", "db_stats", now, List.of(new Measurement.Row(dbStats, null)),
                        Map.of("env", "prod")),
                new Measurement("db2", "db_stats", now,
                        List.of(new Measurement.Row(Map.of("xact_commit", 99, "numbackends", 1), null)),
                        Map.of("source", "spoof")),
                new Measurement("db1", "table_stats", now, List.of(
                        new Measurement.Row(orders, Map.of("table_name", "public.orders")),
                        new Measurement.Row(items, Map.of("table_name", "public.items"))), Map.of()),
                up("db1", 1),
                up("db2", 0),
                new Measurement("db1", "odd_names", now, List.of(new Measurement.Row(odd,
                        Map.of("my-tag", "x", "__internal", "y"))), Map.of()));
    }

    private Measurement up(String source, int up) {
        return new Measurement(source, "instance_up", clock.instant(),
                List.of(new Measurement.Row(Map.of("instance_up", up), null)), Map.of());
    }

    @Test
    void theOperatorsTagWinsOverARowsTagColumnOfTheSameName() throws Exception {
        sink = start(Duration.ofMinutes(10));
        sink.write(List.of(new Measurement("db1", "db_stats", clock.instant(),
                List.of(new Measurement.Row(Map.of("numbackends", 3), Map.of("job", "from-the-row", "datname", "shop"))),
                Map.of("job", "operator"))));

        String body = scrape("/metrics").body();

        assertThat(body).contains("pgharvest_db_stats_numbackends{datname=\"shop\",job=\"operator\",source=\"db1\"} 3.0")
                .doesNotContain("from-the-row");
    }
}
