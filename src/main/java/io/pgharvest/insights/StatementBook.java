package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.sql.PlainRead;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What query_plans needs of one source's other insights metrics, kept on the source's
 * {@link io.pgharvest.nativemetric.SourceShelf}: the query ids of the latest query_stats read by
 * their time in it, and the texts query_texts read, kept only for plain reads
 * ({@link PlainRead}) of at most {@link #MAX_TEXT_LENGTH} characters and only while the id is in
 * pg_stat_statements (so at most pg_stat_statements.max texts). query_plans thus never reads a
 * text itself. Used by the source's reaper thread only.
 */
final class StatementBook {

    /** Longer texts are not kept, and their statements get no plan. */
    static final int MAX_TEXT_LENGTH = 8192;

    private List<Long> ranked = List.of();
    private final Map<Long, String> plainReads = new HashMap<>();

    /** Ranks the query ids of a query_stats read by execution plus planning time (other left out). */
    void rank(List<Measurement.Row> statsRows) {
        var time = new LinkedHashMap<Long, Double>();
        for (Measurement.Row row : statsRows) {
            String id = row.tags().get("queryid");
            if (id == null || StatementDeltas.OTHER.equals(id)) {
                continue;
            }
            time.merge(Long.parseLong(id), number(row.values().get("total_exec_time"))
                    + number(row.values().get("total_plan_time")), Double::sum);
        }
        var ids = new ArrayList<>(time.keySet());
        ids.sort(Comparator.comparingDouble((Long id) -> time.get(id)).reversed());
        ranked = List.copyOf(ids);
    }

    /** Keeps the text of {@code queryId} when it is a plain read short enough to plan. */
    void text(long queryId, String text) {
        if (text.length() <= MAX_TEXT_LENGTH && PlainRead.parameterCount(text).isPresent()) {
            plainReads.put(queryId, text);
        } else {
            plainReads.remove(queryId);
        }
    }

    /** Forgets the texts of ids no longer in pg_stat_statements. */
    void retainTexts(Set<Long> present) {
        plainReads.keySet().retainAll(present);
    }

    /** The query ids of the latest query_stats read, most time first. */
    List<Long> ranked() {
        return ranked;
    }

    /** The text of a plain read, null when the id is not one (or its text was not read yet). */
    String plainRead(long queryId) {
        return plainReads.get(queryId);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }
}
