package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The normalized texts of a source's statements by query id (rows of {@code query_texts}), the most
 * recently seen {@code capacity} of them, each reserved against the window's {@link MemoryBudget}
 * and cut at {@link #MAX_CHARS}. Not thread-safe: its {@link SourceWindow} guards it.
 */
final class QueryTexts {

    static final String METRIC = "query_texts";
    static final int MAX_CHARS = 8192;
    /** The column holding the text; the first of these a row has. */
    private static final String[] TEXT_COLUMNS = {"query", "query_text", "text"};

    private final int capacity;
    private final MemoryBudget budget;
    private final LinkedHashMap<String, String> texts = new LinkedHashMap<>(16, 0.75f, true);

    QueryTexts(int capacity, MemoryBudget budget) {
        this.capacity = capacity;
        this.budget = budget;
    }

    void record(Measurement m) {
        for (Measurement.Row row : m.rows()) {
            String queryid = row.tags().get("queryid");
            String text = textOf(row.values());
            if (queryid != null && text != null) {
                keep(queryid, text);
            }
        }
    }

    /** Keeps one statement's text (cut at {@link #MAX_CHARS}) as the most recently seen, within capacity and budget. */
    void keep(String queryid, String text) {
        if (capacity == 0) {
            return;
        }
        String cut = text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text;
        String old = texts.remove(queryid);
        if (old != null) {
            budget.release(bytes(queryid, old));
        }
        if (texts.size() == capacity) {
            var eldest = texts.entrySet().iterator().next();
            budget.release(bytes(eldest.getKey(), eldest.getValue()));
            texts.remove(eldest.getKey());
        }
        if (budget.reserve(bytes(queryid, cut))) {
            texts.put(queryid, cut);
        }
    }

    /** A copy of every text by query id (for the window's snapshot). */
    Map<String, String> copy() {
        return Map.copyOf(texts);
    }

    private static String textOf(Map<String, Object> values) {
        for (String column : TEXT_COLUMNS) {
            if (values.get(column) instanceof String text) {
                return text;
            }
        }
        return null;
    }

    private static long bytes(String queryid, String text) {
        return 96 + 2L * (queryid.length() + text.length());
    }

    /** The text of a query id, or null when none was read yet. */
    String text(String queryid) {
        return texts.get(queryid);
    }

    /** Releases every text (the source left the window). */
    void clear() {
        texts.forEach((queryid, text) -> budget.release(bytes(queryid, text)));
        texts.clear();
    }

    boolean isEmpty() {
        return texts.isEmpty();
    }
}
