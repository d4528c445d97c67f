package io.pgharvest.reaper.instance;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.RowValues;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits the result of a metric's instance-wide variant into the rows each database would have
 * returned: rows grouped by their {@value MetricDefinition#FAN_OUT_KEY} value, in their original
 * order, with that column removed, so that a sink cannot tell them from a per-database read.
 */
public final class FanOutSplit {

    private FanOutSplit() {
    }

    /** @throws IllegalArgumentException when a row lacks the key column (the variant is wrong) */
    public static Map<String, FetchedRows> byDatabase(String metric, FetchedRows instanceWide) {
        var grouped = new HashMap<String, List<Measurement.Row>>();
        // The result's rows share their column names: the names without the key are made once.
        RowValues.Columns shared = null;
        RowValues.Columns reduced = null;
        for (Measurement.Row row : instanceWide.rows()) {
            if (!row.values().containsKey(MetricDefinition.FAN_OUT_KEY)) {
                throw new IllegalArgumentException("the instance-wide SQL of metric " + metric + " returned no "
                        + MetricDefinition.FAN_OUT_KEY + " column");
            }
            Object database = row.values().get(MetricDefinition.FAN_OUT_KEY);
            if (database == null) {
                continue; // a row of no database (a background worker's): no per-database read returns it
            }
            Map<String, Object> values;
            if (row.values() instanceof RowValues compact) {
                if (compact.columns() != shared) {
                    shared = compact.columns();
                    reduced = shared.without(MetricDefinition.FAN_OUT_KEY);
                }
                values = compact.without(MetricDefinition.FAN_OUT_KEY, reduced);
            } else {
                var copy = new LinkedHashMap<>(row.values());
                copy.remove(MetricDefinition.FAN_OUT_KEY);
                values = copy;
            }
            grouped.computeIfAbsent(database.toString(), d -> new ArrayList<>())
                    .add(new Measurement.Row(values, row.tags()));
        }
        var split = new HashMap<String, FetchedRows>();
        grouped.forEach((database, rows) -> split.put(database, new FetchedRows(rows, instanceWide.reportedTime())));
        return split;
    }
}
