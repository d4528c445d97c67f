package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The one rule of output names: what each name becomes, and which results it refuses. */
@Tag("fast")
class OutputNamesTest {

    private static final Predicate<String> ALL_GAUGES = column -> false;
    private static final Predicate<String> ALL_COUNTERS = column -> true;

    @Test
    void namesAreReducedToWhatEveryScraperReadsAndCleanNamesAreKept() {
        assertThat(OutputNames.sanitize("xact_commit")).isEqualTo("xact_commit");
        assertThat(OutputNames.sanitize("a b")).isEqualTo("a_b");
        assertThat(OutputNames.sanitize("1st")).isEqualTo("_1st");
        assertThat(OutputNames.sanitize("é")).isEqualTo("_");
        assertThat(OutputNames.sanitize("")).isEqualTo("_");
    }

    @Test
    void aTagPosingAsPgharvestsOwnLabelOrReservedByPrometheusIsRenamed() {
        assertThat(OutputNames.labelName("source")).isEqualTo("tag_source");
        assertThat(OutputNames.labelName("pgharvest_instance")).isEqualTo("tag_pgharvest_instance");
        assertThat(OutputNames.labelName("__name__")).isEqualTo("tag___name__");
        assertThat(OutputNames.labelName("my-tag")).isEqualTo("my_tag");
        assertThat(OutputNames.labelName("tag_source")).isEqualTo("tag_source");
    }

    @Test
    void aCountersFamilyDropsTotalAndItsSeriesAddsIt() {
        assertThat(OutputNames.family("db", "xact_total", true)).isEqualTo("pgharvest_db_xact");
        assertThat(OutputNames.family("db", "xact_total", false)).isEqualTo("pgharvest_db_xact_total");
        assertThat(OutputNames.family("instance_up", "instance_up", false)).isEqualTo("pgharvest_instance_up");
        assertThat(OutputNames.series("pgharvest_db_xact", true)).isEqualTo("pgharvest_db_xact_total");
    }

    @Test
    void repeatedNamesAreNamedByPosition() {
        assertThat(OutputNames.repeated(List.of("a", "b", "a"))).hasValueSatisfying(problem ->
                assertThat(problem).startsWith("columns 1 and 3 are both named \"a\"").contains("rename one of them"));
        assertThat(OutputNames.repeated(List.of("epoch_ns", "tag_a", "a"))).isEmpty();
    }

    @Test
    void valueColumnsClashWhenTheirFamiliesOrSeriesMeet() {
        assertThat(clash("m", ALL_GAUGES, Map.of("a b", 1, "a-b", 2))).contains("\"pgharvest_m_a_b\"");
        assertThat(clash("m", ALL_COUNTERS, Map.of("x", 1, "x_total", 2))).contains("family \"pgharvest_m_x\"");
        // A counter x's series is pgharvest_m_x_total, the gauge x_total's too.
        assertThat(clash("m", column -> column.equals("x"), Map.of("x", 1, "x_total", 2)))
                .contains("series \"pgharvest_m_x_total\"");
        // The metric's own name as a column is pgharvest_m; a counter "total" drops to the same.
        assertThat(clash("m", ALL_COUNTERS, Map.of("m", 1, "total", 2))).contains("family \"pgharvest_m\"");
        assertThat(clash("m", ALL_GAUGES, Map.of("x", 1, "x_total", 2))).isNull();
        // "1a" is "_1a" alone, but its family pgharvest_m_1a is not pgharvest_m__1a.
        assertThat(clash("m", ALL_GAUGES, Map.of("1a", 1, "_1a", 2))).isNull();
    }

    @Test
    void tagColumnsClashWhenTheyTakeOneLabel() {
        assertThat(OutputNames.clash("m", ALL_GAUGES, List.of(row(Map.of("v", 1), Map.of("source", "p",
                "tag_source", "q"))))).hasValueSatisfying(problem -> assertThat(problem)
                .contains("\"tag_source\"", "\"tag_tag_source\"", "label \"tag_source\""));
        assertThat(OutputNames.clash("m", ALL_GAUGES, List.of(row(Map.of("v", 1), Map.of("db name", "p",
                "db-name", "q"))))).hasValueSatisfying(problem -> assertThat(problem).contains("label \"db_name\""));
        // A tag and a value of one name are a label and a family: kept apart.
        assertThat(OutputNames.clash("m", ALL_GAUGES, List.of(row(Map.of("a", 1), Map.of("a", "p"))))).isEmpty();
    }

    @Test
    void theTimeColumnIsNoSeries() {
        assertThat(clash("m", ALL_GAUGES, Map.of("epoch_ns", 1, "epoch-ns", 2))).isNull();
    }

    private static String clash(String metric, Predicate<String> counter, Map<String, Object> values) {
        return OutputNames.clash(metric, counter, List.of(row(values, Map.of()))).orElse(null);
    }

    private static Measurement.Row row(Map<String, Object> values, Map<String, String> tags) {
        return new Measurement.Row(values, tags);
    }
}
