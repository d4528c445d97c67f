package io.pgharvest.reaper;

import java.time.Duration;

/** One metric's SQL as sent on one tick, with the server-side time limit it runs under. */
record MetricQuery(String metric, String sql, Duration statementTimeout) {

    MetricQuery {
        sql = stripTrailingSemicolons(sql);
    }

    /** Joined statements must not end up with empty statements between them. */
    private static String stripTrailingSemicolons(String sql) {
        String text = sql.strip();
        while (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).strip();
        }
        return text;
    }
}
