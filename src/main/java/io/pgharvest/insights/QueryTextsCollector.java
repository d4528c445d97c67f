package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * query_texts for one source: the normalized text of each query ID of the source's database once,
 * when the collector first sees it, and again when its text changes. The collector sends the ids
 * and text hashes it knows with the query, so the server returns a text only for the others:
 * every other entry comes back as its id and hash alone, and the bytes sent per read do not
 * grow with the texts already delivered. The known ids are those of the latest read, so the
 * state is bounded by pg_stat_statements.max (one long and one int an entry). Texts pass the
 * reaper's literal redaction like every {@code query} column ({@code model.QueryTextRedaction}).
 * Plain reads' texts are also kept for query_plans ({@link StatementBook}). Statements that only
 * pgharvest's own roles ran are left out unless {@code include-own-statements} is on, as in query_stats.
 * Used by the source's reaper thread only.
 */
final class QueryTextsCollector implements NativeMetric.Collector {

    private final Duration timeout;
    private final boolean includeOwnStatements;
    private StatementsExtension extension;
    /** Query id -> hashtext() of its text, as of the previous read. */
    private Map<Long, Integer> known = Map.of();

    /** @param timeout the time limit of the texts read (the server reads its query text file for it) */
    QueryTextsCollector(Duration timeout) {
        this(timeout, false);
    }

    /**
     * @param timeout the time limit of the texts read (the server reads its query text file for it)
     * @param includeOwnStatements whether the texts of statements only the session's own roles ran
     *     are read too (as query_stats counts them only then)
     */
    QueryTextsCollector(Duration timeout, boolean includeOwnStatements) {
        this.timeout = timeout;
        this.includeOwnStatements = includeOwnStatements;
    }

    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        if (extension == null) {
            extension = StatementsExtension.find(target.sql(), target.database());
        }
        long[] ids = new long[known.size()];
        int[] hashes = new int[known.size()];
        int i = 0;
        for (var entry : known.entrySet()) {
            ids[i] = entry.getKey();
            hashes[i++] = entry.getValue();
        }
        List<Map<String, Object>> read;
        try {
            read = target.sql().query(timeout, extension.textsSql(includeOwnStatements), ids, hashes);
        } catch (SQLException e) {
            if (StatementsExtension.CHANGED_STATES.contains(e.getSQLState())) {
                extension = null;
            }
            throw e;
        }
        StatementBook book = target.shelf().item(StatementBook.class, StatementBook::new);
        var seen = HashMap.<Long, Integer>newHashMap(read.size());
        var rows = new ArrayList<Measurement.Row>();
        for (Map<String, Object> row : read) {
            long queryId = ((Number) row.get("queryid")).longValue();
            int hash = ((Number) row.get("text_hash")).intValue();
            seen.put(queryId, hash);
            if (row.get("query") instanceof String text) {
                book.text(queryId, text);
                var values = new LinkedHashMap<String, Object>();
                values.put("query", text);
                values.put("text_hash", hash);
                rows.add(new Measurement.Row(values, Map.of("queryid", Long.toString(queryId), "dbname",
                        target.database())));
            }
        }
        known = seen;
        book.retainTexts(seen.keySet());
        return rows;
    }

    /** How many query ids this collector knows (its state). */
    int knownIds() {
        return known.size();
    }
}
