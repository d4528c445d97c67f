package io.pgharvest.serverlog;

import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * How records are found in a log file and what they say: the severity and the database of each.
 * Only complete records are read; the caller keeps the rest for the next tick.
 */
enum LogFormat {

    /**
     * csvlog: a record ends at a newline outside double quotes (a message may span lines inside
     * its quoted field); field 3 is the database, field 12 the severity.
     */
    CSV(".csv") {
        @Override
        int scan(byte[] data, int length, Counter counter) {
            boolean quoted = false;
            int field = 0;
            int fieldStart = 0;
            String database = null;
            String severity = null;
            int consumed = 0;
            for (int i = 0; i < length; i++) {
                byte b = data[i];
                if (b == '"') {
                    quoted = !quoted; // a doubled quote toggles twice: still inside
                } else if (!quoted && (b == ',' || b == '\n')) {
                    if (field == DATABASE_FIELD) {
                        database = unquote(data, fieldStart, i);
                    } else if (field == SEVERITY_FIELD) {
                        severity = unquote(data, fieldStart, i);
                    }
                    field++;
                    fieldStart = i + 1;
                    if (b == '\n') {
                        if (severity != null) {
                            counter.count(severity, database);
                        }
                        field = 0;
                        database = null;
                        severity = null;
                        consumed = i + 1;
                    }
                }
            }
            return consumed;
        }
    },

    /** jsonlog (PostgreSQL 15+): one JSON object per line, keys {@code error_severity} and {@code dbname}. */
    JSON(".json") {
        @Override
        int scan(byte[] data, int length, Counter counter) {
            int consumed = 0;
            for (int i = 0; i < length; i++) {
                if (data[i] != '\n') {
                    continue;
                }
                if (i > consumed) {
                    try {
                        JsonNode record = MAPPER.readTree(new String(data, consumed, i - consumed,
                                StandardCharsets.UTF_8));
                        JsonNode severity = record.get("error_severity");
                        JsonNode database = record.get("dbname");
                        if (severity != null) {
                            counter.count(severity.asString(), database == null ? null : database.asString());
                        }
                    } catch (RuntimeException e) {
                        // not a JSON record (a line written by something else): not a log event
                    }
                }
                consumed = i + 1;
            }
            return consumed;
        }
    };

    private static final int DATABASE_FIELD = 2;
    private static final int SEVERITY_FIELD = 11;
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final String suffix;

    LogFormat(String suffix) {
        this.suffix = suffix;
    }

    /** The file name ending PostgreSQL gives this format's files. */
    String suffix() {
        return suffix;
    }

    /**
     * Counts the complete records among the first {@code length} bytes of {@code data}.
     *
     * @return how many bytes the complete records take (the next read starts there)
     */
    abstract int scan(byte[] data, int length, Counter counter);

    /** Told about each record. */
    @FunctionalInterface
    interface Counter {
        void count(String severity, String database);
    }

    private static String unquote(byte[] data, int from, int to) {
        if (to - from >= 2 && data[from] == '"' && data[to - 1] == '"') {
            return new String(data, from + 1, to - from - 2, StandardCharsets.UTF_8).replace("\"\"", "\"");
        }
        return new String(data, from, to - from, StandardCharsets.UTF_8);
    }
}
