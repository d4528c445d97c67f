package io.pgharvest.history.prometheus;

import io.pgharvest.history.HistoryReadException;
import io.pgharvest.history.HistoryReader;
import io.pgharvest.model.OutputNames;
import io.pgharvest.window.KeyNumbers;
import io.pgharvest.window.Plan;
import io.pgharvest.window.Series;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.Statement;
import io.pgharvest.window.TimeRange;
import io.pgharvest.window.WaitShare;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the series the {@code prometheus-remote-write} sink writes ({@code sink.SeriesMapping}:
 * {@code pgharvest_<metric>_<column>}, {@code _total} for a counter, label {@code source} and the
 * row's tags) through {@code query_range}, one query per column, evaluated at the end of each
 * bucket {@code [b, b + step)} (at {@code b + step - 1ms}, with {@code b} a whole multiple of the
 * step since the epoch, as the postgres reader's {@code date_bin}), so a point's time is its
 * bucket's start and a series has at most {@link TimeRange#MAX_POINTS} points.
 *
 * <p>Kinds as the window computes them: a gauge is {@code avg_over_time} over the bucket; a delta
 * {@code sum_over_time}; a counter's rate is its change from the last sample before the bucket
 * to the last sample in it over the step (PromQL's {@code rate} extrapolates and needs two samples
 * in its range, which would differ from the window's change between collections). A bucket with a
 * counter reset has no point. Plans and wait events are strings, which remote write does not
 * carry: those reads say so.
 */
final class PrometheusHistoryReader implements HistoryReader {

    static final String STORE = "prometheus";

    private final String name;
    private final QueryApi api;
    private final Duration retention;

    PrometheusHistoryReader(String name, QueryApi api, Duration retention) {
        this.name = name;
        this.api = api;
        this.retention = retention;
    }

    @Override
    public String store() {
        return STORE;
    }

    @Override
    public Duration retention() {
        return retention;
    }

    @Override
    public List<Series> series(String source, TimeRange range, String metric, Map<String, SeriesKind> columns,
            Map<String, String> tags) throws HistoryReadException {
        long step = range.step().toMillis();
        Instant first = Instant.ofEpochMilli(Math.floorDiv(range.from().toEpochMilli(), step) * step + step - 1);
        Instant last = range.to().minusMillis(1);
        var series = new ArrayList<Series>();
        if (last.isBefore(first)) {
            last = first; // a range shorter than its first bucket still reads that bucket
        }
        for (String column : new TreeMap<>(columns).keySet()) {
            SeriesKind kind = columns.get(column);
            String query = PromQl.bucketed(PromQl.selector(metric, column, source, tags), kind, range.step());
            for (QueryApi.Result result : api.range(metric + "." + column, query, first, last, range.step())) {
                long[] times = result.times().clone();
                for (int i = 0; i < times.length; i++) {
                    times[i] = times[i] - step + 1;
                }
                series.add(new Series(metric, column, rowTags(result.labels()), kind, STORE, range.step(), times,
                        result.values()));
            }
        }
        return series;
    }

    @Override
    public List<Statement> statements(String source, TimeRange range, int limit) throws HistoryReadException {
        Instant at = range.to().minusMillis(1);
        Duration length = range.length();
        String metric = "query_stats";
        Map<Map<String, String>, double[]> sums = new HashMap<>();
        var order = new ArrayList<Map<String, String>>();
        List<QueryApi.Result> top = api.instant(metric, PromQl.topStatements(source, length, limit), at);
        for (QueryApi.Result r : top) {
            Map<String, String> key = PromQl.statementKey(r.labels());
            order.add(key);
            sums.put(key, new double[] {0, r.values().length == 0 ? 0 : r.values()[0], 0, 0, 0});
        }
        String[] others = {"calls", null, "rows", "shared_blks_read", "approximate"};
        for (int c = 0; c < others.length; c++) {
            if (others[c] == null || order.isEmpty()) {
                continue;
            }
            for (QueryApi.Result r : api.instant(metric + "." + others[c],
                    PromQl.perStatement(source, others[c], length), at)) {
                double[] sum = sums.get(PromQl.statementKey(r.labels()));
                if (sum != null && r.values().length > 0) {
                    sum[c] = r.values()[0];
                }
            }
        }
        Map<String, String> texts = order.isEmpty() ? Map.of() : texts(source, length, at);
        var statements = new ArrayList<Statement>();
        for (Map<String, String> key : order) {
            double[] s = sums.get(key);
            String queryid = key.get("queryid");
            statements.add(new Statement(queryid, key.get("dbname"), key.get("user"), key.get("toplevel"), s[0], s[1],
                    s[0] > 0 ? s[1] / s[0] : null, s[2], s[3], texts.get(queryid), null, 0, s[4] > 0));
        }
        statements.sort(Statement.MOST_TIME_FIRST);
        return statements;
    }

    @Override
    public Map<String, KeyNumbers> keyNumbers(TimeRange range) throws HistoryReadException {
        return StoredKeyNumbers.read(api, range);
    }

    @Override
    public String text(String source, String queryid) throws HistoryReadException {
        // The text series is sent while the statement is among the top; a month back is enough to find one.
        Instant now = Instant.now();
        Duration back = retention.isZero() ? Duration.ofDays(30) : retention;
        return texts(source, back, now).get(queryid);
    }

    private Map<String, String> texts(String source, Duration length, Instant at) throws HistoryReadException {
        var texts = new HashMap<String, String>();
        for (QueryApi.Result r : api.instant("query_texts", PromQl.texts(source, length), at)) {
            texts.putIfAbsent(r.labels().get("queryid"), r.labels().get("query"));
        }
        return texts;
    }

    @Override
    public List<Plan> plans(String source, String queryid, TimeRange range) throws HistoryReadException {
        throw new HistoryReadException("a " + STORE + " store holds no plans (remote write carries numbers; "
                + "query_plans' plan and hash are text): read them from a postgres sink's store", null);
    }

    @Override
    public List<WaitShare> waits(String source, String queryid, TimeRange range) throws HistoryReadException {
        throw new HistoryReadException("a " + STORE + " store holds no session samples (query_samples' wait events "
                + "are text, which remote write does not carry): read them from a postgres sink's store", null);
    }

    /** The row's tags as the store labels them: without {@code source} and the fleet instance. */
    private static Map<String, String> rowTags(Map<String, String> labels) {
        var tags = new TreeMap<>(labels);
        tags.remove(OutputNames.SOURCE_LABEL);
        tags.remove(OutputNames.INSTANCE_LABEL);
        return Map.copyOf(tags);
    }

    @Override
    public void close() {
        api.client().close();
    }

    @Override
    public String toString() {
        return "PrometheusHistoryReader[" + name + ", " + api + "]";
    }
}
