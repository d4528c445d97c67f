package io.pgharvest.history.prometheus;

import io.pgharvest.history.HistoryReadException;
import io.pgharvest.model.OutputNames;
import io.pgharvest.window.KeyNumbers;
import io.pgharvest.window.TimeRange;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The whole fleet's key numbers over a range: one query per column aggregated {@code by (source)}
 * (an instant query at the range's end over the range: {@code *_over_time}, {@code rate}), so the overview costs the
 * same handful of queries at 3 sources as at 3,000. Over a range: the TPS is PromQL's {@code rate}
 * of commits + rollbacks over the whole range (so on Prometheus, unlike the postgres reader's, it is
 * divided by the range's length even where the source was collected for part of it; VictoriaMetrics'
 * {@code rate} divides by the seconds its samples span, the mean while collected), sessions the mean and the
 * peak, the size the last sample, the lag the highest.
 */
final class StoredKeyNumbers {

    /** A figure: its query's aggregation by source over one column. */
    private record Figure(String name, String metric, String column, String query) {
    }

    private static final List<Figure> FIGURES = List.of(
            // Two queries, not one over both names: rate drops the name, leaving two series of one label set.
            // Prometheus's rate() divides by the whole range: a source collected for part of it shows a lower mean.
            // VictoriaMetrics' does not extrapolate and divides by the seconds its samples span: the mean while
            // collected, as the postgres reader's (neither increase() nor max - min is the same on both stores).
            new Figure("commits", "db_stats", "xact_commit", "sum by (source) (rate(%s[%s]))"),
            new Figure("rollbacks", "db_stats", "xact_rollback", "sum by (source) (rate(%s[%s]))"),
            new Figure("sessions", "backends", "total", "sum by (source) (avg_over_time(%s[%s]))"),
            new Figure("sessionsPeak", "backends", "total", "sum by (source) (max_over_time(%s[%s]))"),
            new Figure("numbackends", "db_stats", "numbackends", "sum by (source) (avg_over_time(%s[%s]))"),
            new Figure("numbackendsPeak", "db_stats", "numbackends", "sum by (source) (max_over_time(%s[%s]))"),
            new Figure("size", "db_size", "size_b", "sum by (source) (last_over_time(%s[%s]))"),
            new Figure("lag", "replication", "replay_lag_b", "max by (source) (max_over_time(%s[%s]))"),
            new Figure("standbyLag", "wal_receiver", "unreplayed_b", "max by (source) (max_over_time(%s[%s]))"));

    private StoredKeyNumbers() {
    }

    static Map<String, KeyNumbers> read(QueryApi api, TimeRange range) throws HistoryReadException {
        Instant at = range.to().minusMillis(1);
        Map<String, Map<String, Double>> bySource = new TreeMap<>();
        for (Figure figure : FIGURES) {
            String selector = selector(figure.metric(), figure.column());
            String query = figure.query().formatted(selector, PromQl.seconds(range.length()));
            for (QueryApi.Result result : api.instant("key numbers " + figure.name(), query, at)) {
                String source = result.labels().get(OutputNames.SOURCE_LABEL);
                if (source != null && result.values().length > 0 && !Double.isNaN(result.values()[0])) {
                    bySource.computeIfAbsent(source, s -> new HashMap<>()).put(figure.name(), result.values()[0]);
                }
            }
        }
        var numbers = new TreeMap<String, KeyNumbers>();
        bySource.forEach((source, f) -> numbers.put(source, new KeyNumbers(source, tps(f),
                f.getOrDefault("sessions", f.get("numbackends")), f.getOrDefault("sessionsPeak", f.get("numbackendsPeak")),
                f.get("size"), f.getOrDefault("lag", f.get("standbyLag")), null, PrometheusHistoryReader.STORE, null)));
        return numbers;
    }

    private static Double tps(Map<String, Double> figures) {
        Double commits = figures.get("commits");
        return commits == null ? null : commits + figures.getOrDefault("rollbacks", 0.0);
    }

    /** Every source's series of the column, by their gauge or counter names. */
    private static String selector(String metric, String column) {
        String gauge = OutputNames.family(metric, column, false);
        String counter = OutputNames.series(OutputNames.family(metric, column, true), true);
        return "{__name__=~" + PromQl.quote(gauge + "|" + counter) + "}";
    }
}
