package io.pgharvest.model;

import io.pgharvest.model.sql.LiteralRedactor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Statement texts in measurements without their literals ({@link LiteralRedactor}), applied to
 * everything a source publishes unless the source keeps literals ({@link Source#keepQueryLiterals()}).
 *
 * <p>Which values are statement texts is a naming rule, like {@code tag_} for tags: a column or
 * tag named {@code query} or ending in {@code _query} ({@code last_query}, {@code blocked_query},
 * the tag {@code query} of {@code stat_statements}). The rule covers operators' own metrics
 * without a setting of theirs, and texts pg_stat_statements normalized already come through
 * unchanged (their constants are {@code $n}) while what it keeps verbatim (utility statements
 * before PostgreSQL 16, e.g. {@code ALTER ROLE ... PASSWORD '...'}) loses its literals too.
 */
public final class QueryTextRedaction {

    private static final String QUERY = "query";
    private static final String QUERY_SUFFIX = "_query";

    private QueryTextRedaction() {
    }

    /** Whether a column or tag of this name holds a statement text. */
    public static boolean isQueryText(String name) {
        return name.equals(QUERY) || name.endsWith(QUERY_SUFFIX);
    }

    /** {@code batch} with its statement texts redacted; the same list when it has none. */
    public static List<Measurement> redact(List<Measurement> batch) {
        List<Measurement> out = null;
        for (int i = 0; i < batch.size(); i++) {
            Measurement original = batch.get(i);
            Measurement redacted = redact(original);
            if (redacted != original && out == null) {
                out = new ArrayList<>(batch.subList(0, i));
            }
            if (out != null) {
                out.add(redacted);
            }
        }
        return out == null ? batch : out;
    }

    /** {@code measurement} with its statement texts redacted; the same object when it has none. */
    public static Measurement redact(Measurement measurement) {
        List<Measurement.Row> rows = measurement.rows();
        if (!carriesQueryText(rows)) {
            return measurement;
        }
        var redacted = new ArrayList<Measurement.Row>(rows.size());
        for (Measurement.Row row : rows) {
            redacted.add(new Measurement.Row(values(row.values()), tags(row.tags())));
        }
        return new Measurement(measurement.source(), measurement.metric(), measurement.time(), redacted,
                measurement.tags());
    }

    /** Rows of one result share their column and tag names: those are looked at once. */
    private static boolean carriesQueryText(List<Measurement.Row> rows) {
        RowValues.Columns seen = null;
        RowTags seenTags = null;
        for (Measurement.Row row : rows) {
            if (row.values() instanceof RowValues values) {
                if (values.columns() != seen) {
                    seen = values.columns();
                    for (int i = 0; i < seen.size(); i++) {
                        if (isQueryText(seen.name(i))) {
                            return true;
                        }
                    }
                }
            } else {
                for (String name : row.values().keySet()) {
                    if (isQueryText(name)) {
                        return true;
                    }
                }
            }
            RowTags tags = RowTags.copyOf(row.tags());
            if (!tags.sharesNamesWith(seenTags)) {
                seenTags = tags;
                for (int i = 0; i < tags.size(); i++) {
                    if (isQueryText(tags.name(i))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static Map<String, Object> values(Map<String, Object> values) {
        if (values instanceof RowValues row) {
            RowValues.Columns columns = row.columns();
            Object[] copy = new Object[columns.size()];
            for (int i = 0; i < copy.length; i++) {
                copy[i] = redacted(columns.name(i), row.value(i));
            }
            return new RowValues(columns, copy);
        }
        var copy = new LinkedHashMap<String, Object>(values.size() * 2);
        values.forEach((name, value) -> copy.put(name, redacted(name, value)));
        return copy;
    }

    private static Map<String, String> tags(Map<String, String> tags) {
        RowTags row = RowTags.copyOf(tags);
        int size = row.size();
        String[] names = new String[size];
        String[] values = new String[size];
        for (int i = 0; i < size; i++) {
            names[i] = row.name(i);
            values[i] = isQueryText(names[i]) ? RedactedTexts.redact(row.value(i)) : row.value(i);
        }
        return RowTags.of(names, values, size);
    }

    private static Object redacted(String name, Object value) {
        return value instanceof String text && isQueryText(name) ? RedactedTexts.redact(text) : value;
    }
}
