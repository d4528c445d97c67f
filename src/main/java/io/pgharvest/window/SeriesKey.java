package io.pgharvest.window;

import java.util.Map;

/** One series of a source: a metric's column for one set of row tags (one database, one state, one query id). */
record SeriesKey(String metric, String column, Map<String, String> tags) {
}
