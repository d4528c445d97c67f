package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statement texts a Prometheus-format sink has received ({@code query_texts} rows: tag
 * {@code queryid}, value {@code query}), per source, so that the series mapping can give each
 * {@code query_stats} row's query ID its text as an info series instead of a label on every field.
 *
 * <p>Bounded: at most {@value #PER_SOURCE} texts per source, each cut at {@value #MAX_TEXT_LENGTH}
 * characters (it becomes a label value). When a text arrives and the source has its maximum, the
 * text used or received longest ago goes, except those of the query IDs in the source's latest
 * {@code query_stats} rows (the top statements, 50 by default): a burst of texts of statements
 * outside the top does not push out the texts the series need. query_texts sends a text once per
 * query ID, so a text that went comes back only when the collector fetches it again. Thread-safe:
 * the sink's writer remembers while a scrape reads.
 */
final class StatementTexts {

    static final int PER_SOURCE = 256;
    static final int MAX_TEXT_LENGTH = 1024;
    static final String QUERY_TEXTS = "query_texts";
    static final String QUERY_STATS = "query_stats";
    static final String QUERY_ID_TAG = "queryid";
    static final String TEXT_COLUMN = "query";

    private final Map<String, SourceTexts> bySource = new ConcurrentHashMap<>();

    /** Keeps the texts of {@code query_texts}, and which query IDs {@code query_stats} shows; ignores the rest. */
    void remember(Measurement m) {
        boolean texts = QUERY_TEXTS.equals(m.metric());
        if (!texts && !QUERY_STATS.equals(m.metric())) {
            return;
        }
        SourceTexts source = bySource.computeIfAbsent(m.source(), name -> new SourceTexts());
        synchronized (source) {
            if (texts) {
                for (Measurement.Row row : m.rows()) {
                    String queryId = row.tags().get(QUERY_ID_TAG);
                    if (queryId != null && row.values().get(TEXT_COLUMN) instanceof String text) {
                        source.put(queryId, text.length() > MAX_TEXT_LENGTH ? text.substring(0, MAX_TEXT_LENGTH) : text);
                    }
                }
            } else {
                source.shown.clear();
                for (Measurement.Row row : m.rows()) {
                    String queryId = row.tags().get(QUERY_ID_TAG);
                    if (queryId != null) {
                        source.shown.add(queryId);
                    }
                }
            }
        }
    }

    /** The text of {@code queryId} on {@code source}, or null when none was received (or it went). */
    String textOf(String source, String queryId) {
        SourceTexts texts = bySource.get(source);
        if (texts == null) {
            return null;
        }
        synchronized (texts) {
            return texts.byQueryId.get(queryId); // access order: a text in use stays
        }
    }

    /** One source's texts, oldest use first, and the query IDs of its latest query_stats. */
    private static final class SourceTexts {
        final LinkedHashMap<String, String> byQueryId = new LinkedHashMap<>(64, 0.75f, true);
        final Set<String> shown = new HashSet<>();

        void put(String queryId, String text) {
            byQueryId.put(queryId, text);
            if (byQueryId.size() <= PER_SOURCE) {
                return;
            }
            for (Iterator<String> it = byQueryId.keySet().iterator(); it.hasNext(); ) {
                String oldest = it.next();
                if (!shown.contains(oldest) && !oldest.equals(queryId)) {
                    it.remove();
                    return;
                }
            }
        }
    }
}
