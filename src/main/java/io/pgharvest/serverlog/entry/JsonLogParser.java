package io.pgharvest.serverlog.entry;

import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * jsonlog (PostgreSQL 15 and later): one JSON object per line, read by Jackson; a key the server
 * leaves out (it writes only the parts that have a value) is null here.
 */
public final class JsonLogParser implements LogEntryParser {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    @Override
    public int parse(byte[] data, int length, boolean atRest, Consumer<LogEntry> out) {
        int consumed = 0;
        for (int i = 0; i < length; i++) {
            if (data[i] != '\n') {
                continue;
            }
            if (i > consumed) {
                try {
                    JsonNode record = MAPPER.readTree(data, consumed, i - consumed);
                    if (record != null && record.isObject()) {
                        out.accept(entry(record));
                    }
                } catch (JacksonException e) {
                    // not a JSON record (a line written by something else): not a log entry
                }
            }
            consumed = i + 1;
        }
        return consumed;
    }

    private static LogEntry entry(JsonNode record) {
        var entry = new EntryBuilder();
        entry.time = LogTimes.parse(text(record, "timestamp"));
        entry.user = text(record, "user");
        entry.database = text(record, "dbname");
        entry.pid = record.hasNonNull("pid") ? record.get("pid").asInt() : null;
        entry.clientAddress = text(record, "remote_host");
        entry.severity = text(record, "error_severity");
        entry.sqlState = text(record, "state_code");
        entry.message = text(record, "message");
        entry.detail = text(record, "detail");
        entry.hint = text(record, "hint");
        entry.internalQuery = text(record, "internal_query");
        entry.context = text(record, "context");
        entry.statement = text(record, "statement");
        entry.application = text(record, "application_name");
        entry.backendType = text(record, "backend_type");
        entry.queryId = record.hasNonNull("query_id") ? record.get("query_id").asLong() : null;
        return entry.build();
    }

    private static String text(JsonNode record, String key) {
        JsonNode value = record.get(key);
        return value == null || value.isNull() ? null : EntryBuilder.emptyToNull(value.asString());
    }
}
