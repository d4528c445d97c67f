package io.pgharvest.kind;

import java.time.Duration;

/** One metric's SQL as sent on one tick, with the server-side time limit it runs under. */
public record MetricQuery(String metric, String sql, Duration statementTimeout) {

    public MetricQuery {
        sql = stripTrailingSemicolons(sql);
    }

    /**
     * Stripped texts by original text, shared by every source: a tick then allocates nothing
     * for its queries' SQL, and equal metrics on different sources hold one string.
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, String> STRIPPED =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_STRIPPED = 4096;

    /** Joined statements must not end up with empty statements between them. */
    private static String stripTrailingSemicolons(String sql) {
        String known = STRIPPED.get(sql);
        if (known != null) {
            return known;
        }
        if (STRIPPED.size() >= MAX_STRIPPED) {
            STRIPPED.clear(); // texts of metrics long gone; the live ones come back at once
        }
        String stripped = strip(sql);
        STRIPPED.put(sql, stripped);
        return stripped;
    }

    private static String strip(String sql) {
        String text = sql.strip();
        while (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).strip();
        }
        return text;
    }
}
