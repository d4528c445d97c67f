package io.pgharvest.serverlog.event;

import io.pgharvest.model.Measurement;
import io.pgharvest.serverlog.entry.LogEntry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * Builds one event's row: the columns every category has ({@code log_time}, {@code dbname},
 * {@code pid}, as text: they are not samples), then the category's own. Numbers are the
 * category's measured values; identifiers (pids, query IDs, xids) are text, so Prometheus gets
 * no series of them.
 */
final class EventRow {

    private final Map<String, Object> values = new LinkedHashMap<>();
    private final Map<String, String> tags = new LinkedHashMap<>();
    /** The matcher last searched and whether it matched: several columns come from one line's groups. */
    private Matcher searched;
    private boolean matched;

    EventRow(LogEntry entry) {
        values.put("log_time", entry.time() == null ? null : entry.time().toString());
        values.put("dbname", entry.database());
        values.put("pid", entry.pid() == null ? null : entry.pid().toString());
    }

    EventRow put(String column, Object value) {
        values.put(column, value);
        return this;
    }

    EventRow tag(String name, String value) {
        tags.put(name, value == null ? "" : value);
        return this;
    }

    EventRow queryId(LogEntry entry) {
        return queryId(entry.knownQueryId());
    }

    EventRow queryId(Long queryId) {
        values.put("queryid", queryId == null ? null : queryId.toString());
        return this;
    }

    /** {@code column} as a long from group {@code group} of {@code matched}, null when it did not match. */
    EventRow number(String column, Matcher matched, int group) {
        values.put(column, found(matched) && matched.group(group) != null ? Long.valueOf(matched.group(group)) : null);
        return this;
    }

    /** {@code column} as a double from group {@code group} of {@code matched}, null when it did not match. */
    EventRow decimal(String column, Matcher matched, int group) {
        values.put(column, found(matched) && matched.group(group) != null
                ? Double.valueOf(matched.group(group)) : null);
        return this;
    }

    /** Searches {@code matcher} from the start once, however many columns read its groups. */
    private boolean found(Matcher matcher) {
        if (matcher != searched) {
            searched = matcher;
            matched = matcher.find(0);
        }
        return matched;
    }

    LogEvent as(LogCategory category) {
        return new LogEvent(category, new Measurement.Row(values, tags));
    }
}
