package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.OutputNames;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * How a measurement becomes Prometheus samples: the one mapping of the scrape sink
 * ({@code sink.prometheus}) and the remote-write sink ({@code sink.remotewrite}), so a dashboard
 * or an alert reads the same series whichever way the data arrived.
 *
 * <p>Naming: family {@code pgharvest_<metric>_<column>} ({@code pgharvest_<metric>} when the
 * column is named like the metric, e.g. {@code pgharvest_instance_up}); a counter's series is
 * named {@code <family>_total}. Every number and boolean column (as 0/1) is a sample except
 * {@code epoch_ns}; strings are not. A column is a gauge when the metric definition says so or
 * when the metric is unknown ({@code instance_up}), a counter otherwise; a negative value of a
 * counter column is not a sample. Labels: {@code source}, the source's custom tags and the row's
 * tags (the query's {@code tag_} columns; the operator's tag wins on equal names). Names follow
 * {@link OutputNames}: reduced to {@code [a-zA-Z0-9_]} so every scraper and escaping scheme reads
 * them unchanged; a tag that would collide with {@code source}, with {@value #INSTANCE_LABEL} or
 * use the reserved {@code __} prefix gets a {@code tag_} prefix. A result whose names would meet
 * after these rules never gets here (the reaper refuses it). In a fleet every series also carries
 * {@value #INSTANCE_LABEL}, the fleet instance id of the collector.
 *
 * <p>Statement texts are never labels of a field: the rows of {@code query_stats} (the top
 * statements plus one {@code other} row, labels {@code queryid} and {@code dbname}) are joined to
 * their text by one gauge per query ID, {@value #TEXT_INFO_FAMILY}{@code {source, dbname, queryid,
 * query="..."} 1}, sent with each {@code query_stats} measurement for the query IDs whose text the
 * sink received from {@code query_texts} ({@link #remember}). A database's thousands of statements
 * thus give at most the top N + 1 series per field and N text series. The older
 * {@code stat_statements} keeps its text as the label {@code query} for pgwatch's dashboards.
 */
public final class SeriesMapping {

    public static final String PREFIX = OutputNames.PREFIX;
    public static final String INSTANCE_LABEL = OutputNames.INSTANCE_LABEL;
    /** The family that gives each top statement of {@code query_stats} its text. */
    public static final String TEXT_INFO_FAMILY = PREFIX + "query_text_info";
    private static final String TEXT_INFO_COLUMN = "query_text_info";
    private static final String TEXT_LABEL = "query";
    private static final String DBNAME_TAG = "dbname";

    /** Receives the samples of one measurement, row by row. */
    @FunctionalInterface
    public interface SampleVisitor {

        /**
         * @param family the family name, without {@code _total}
         * @param counter whether the column is a counter (its series is {@code family + "_total"})
         * @param labels the row's labels, shared by every sample of the row (do not modify)
         */
        void sample(String family, boolean counter, RowLabels labels, String column, double value);
    }

    /**
     * The labels of one row, sorted by name as the remote-write protocol requires.
     *
     * @param names label names in ascending (UTF-16 code unit, here ASCII) order
     * @param values the value of each name
     */
    public record RowLabels(String[] names, String[] values) {

        public int size() {
            return names.length;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof RowLabels o && Arrays.equals(names, o.names) && Arrays.equals(values, o.values);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(names) + Arrays.hashCode(values);
        }

        @Override
        public String toString() {
            return "RowLabels" + Arrays.toString(names) + Arrays.toString(values);
        }
    }

    private final MetricCatalog catalog;
    private final StatementTexts texts = new StatementTexts();
    /** The fleet instance id for {@link #INSTANCE_LABEL}; null with a single instance. */
    private final String instanceId;

    public SeriesMapping(MetricCatalog catalog, String instanceId) {
        this.catalog = catalog;
        this.instanceId = instanceId;
    }

    /**
     * Keeps the statement texts of a {@code query_texts} measurement for the text series of
     * {@code query_stats} measurements, and which query IDs the latest {@code query_stats} shows
     * (their texts are kept first). A sink calls it for every measurement it receives, before
     * {@link #visit}; other metrics are ignored.
     */
    public void remember(Measurement m) {
        texts.remember(m);
    }

    /**
     * Calls {@code visitor} for every sample of {@code m}, rows in order, columns in row order,
     * then, for {@code query_stats}, one {@value #TEXT_INFO_FAMILY} sample per query ID with a known text.
     */
    public void visit(Measurement m, SampleVisitor visitor) {
        visitFields(m, visitor);
        if (StatementTexts.QUERY_STATS.equals(m.metric())) {
            visitTexts(m, visitor);
        }
    }

    private void visitFields(Measurement m, SampleVisitor visitor) {
        Optional<MetricDefinition> definition = catalog.byStorageName(m.metric());
        for (Measurement.Row row : m.rows()) {
            RowLabels labels = labels(m, row);
            row.values().forEach((column, value) -> {
                OptionalDouble number = JsonValues.numeric(value);
                if (number.isEmpty() || column.equals("epoch_ns") || column.startsWith("tag_")) {
                    return;
                }
                boolean counter = definition.isPresent() && !definition.get().isGauge(column);
                double v = number.getAsDouble();
                if (counter && v < 0) {
                    return; // a counter never goes below zero; such a value would read as a reset
                }
                visitor.sample(OutputNames.family(m.metric(), column, counter), counter, labels, column, v);
            });
        }
    }

    /** Each query ID once (several roles or top-level flags share a text); none for {@code other}. */
    private void visitTexts(Measurement m, SampleVisitor visitor) {
        var seen = new java.util.HashSet<String>();
        for (Measurement.Row row : m.rows()) {
            String queryId = row.tags().get(StatementTexts.QUERY_ID_TAG);
            if (queryId == null || !seen.add(queryId)) {
                continue;
            }
            String text = texts.textOf(m.source(), queryId);
            if (text == null) {
                continue;
            }
            var labels = new TreeMap<String, String>();
            m.tags().forEach((name, value) -> labels.put(OutputNames.labelName(name), value));
            String database = row.tags().get(DBNAME_TAG);
            if (database != null) {
                labels.put(DBNAME_TAG, database);
            }
            labels.put(StatementTexts.QUERY_ID_TAG, queryId);
            labels.put(TEXT_LABEL, text);
            labels.put(OutputNames.SOURCE_LABEL, m.source());
            if (instanceId != null) {
                labels.put(INSTANCE_LABEL, instanceId);
            }
            visitor.sample(TEXT_INFO_FAMILY, false,
                    new RowLabels(labels.keySet().toArray(String[]::new), labels.values().toArray(String[]::new)),
                    TEXT_INFO_COLUMN, 1);
        }
    }

    /** HELP text of a family: which column of which metric, and the metric's description. */
    public String help(String metric, String column) {
        if (TEXT_INFO_COLUMN.equals(column)) {
            return "The statement text (label query, literals replaced by $n) of each query ID in the latest"
                    + " query_stats rows; always 1";
        }
        String description = catalog.byStorageName(metric).map(MetricDefinition::description).orElse("").strip();
        String help = "Column " + column + " of metric " + metric;
        return description.isEmpty() ? help : help + ": " + description.lines().findFirst().orElse("");
    }

    /** The series name of a sample: the family, plus {@code _total} for a counter ({@link OutputNames#series}). */
    public static String seriesName(String family, boolean counter) {
        return OutputNames.series(family, counter);
    }

    private RowLabels labels(Measurement m, Measurement.Row row) {
        var labels = new TreeMap<String, String>();
        // The operator's tags win over the row's tag_ columns of the same name (docs/sinks.md "Names").
        row.tags().forEach((name, value) -> labels.put(OutputNames.labelName(name), value));
        m.tags().forEach((name, value) -> labels.put(OutputNames.labelName(name), value));
        labels.put(OutputNames.SOURCE_LABEL, m.source());
        if (instanceId != null) {
            labels.put(INSTANCE_LABEL, instanceId);
        }
        return new RowLabels(labels.keySet().toArray(String[]::new), labels.values().toArray(String[]::new));
    }
}
