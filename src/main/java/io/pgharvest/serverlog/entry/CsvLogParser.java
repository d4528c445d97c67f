package io.pgharvest.serverlog.entry;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * csvlog: one CSV record per entry, DETAIL, HINT, CONTEXT and the statement in fields of their
 * own, a record ending at a line feed outside double quotes (a message may span lines inside
 * its quoted field). Columns as PostgreSQL 14 and later write them (query_id the 26th).
 *
 * <p>The records are split here, on the bytes: a field becomes a String only when the entry uses
 * it, decoded once from UTF-8. A general CSV library decoded the whole chunk to text and then
 * copied every field char by char into a builder; that was three quarters of the collector's CPU
 * in a log flood (docs/performance.md, log insights).
 */
public final class CsvLogParser implements LogEntryParser {

    private static final int LOG_TIME = 0;
    private static final int USER = 1;
    private static final int DATABASE = 2;
    private static final int PID = 3;
    private static final int CONNECTION_FROM = 4;
    private static final int SEVERITY = 11;
    private static final int SQL_STATE = 12;
    private static final int MESSAGE = 13;
    private static final int DETAIL = 14;
    private static final int HINT = 15;
    private static final int INTERNAL_QUERY = 16;
    private static final int CONTEXT = 18;
    private static final int QUERY = 19;
    private static final int APPLICATION = 22;
    private static final int BACKEND_TYPE = 23;
    private static final int QUERY_ID = 25;
    /** Fields after these are counted but not kept: no column the entry needs is there. */
    private static final int KEPT_FIELDS = QUERY_ID + 1;

    @Override
    public int parse(byte[] data, int length, boolean atRest, Consumer<LogEntry> out) {
        int complete = completeRecords(data, length);
        var record = new Record(data);
        int at = 0;
        while (at < complete) {
            at = record.read(at, complete);
            if (record.count > MESSAGE) {
                out.accept(record.entry());
            }
        }
        return complete;
    }

    /** Where the last record that ends in {@code data} ends: after a line feed outside quotes. */
    static int completeRecords(byte[] data, int length) {
        boolean quoted = false;
        int complete = 0;
        for (int i = 0; i < length; i++) {
            byte b = data[i];
            if (b == '"') {
                quoted = !quoted; // a doubled quote toggles twice: still inside
            } else if (b == '\n' && !quoted) {
                complete = i + 1;
            }
        }
        return complete;
    }

    /** One record's fields as offsets into the bytes, reused from record to record. */
    private static final class Record {

        private final byte[] data;
        private final int[] starts = new int[KEPT_FIELDS];
        private final int[] ends = new int[KEPT_FIELDS];
        /** Whether a field holds a doubled quote, which stands for one. */
        private final boolean[] doubled = new boolean[KEPT_FIELDS];
        private int count;

        Record(byte[] data) {
            this.data = data;
        }

        /** Reads the record at {@code from} (it ends before {@code limit}); returns where the next starts. */
        int read(int from, int limit) {
            count = 0;
            int i = from;
            while (true) {
                int start;
                int end;
                boolean quotes = false;
                if (i < limit && data[i] == '"') {
                    start = i + 1;
                    int j = start;
                    while (j < limit) {
                        if (data[j] == '"') {
                            if (j + 1 < limit && data[j + 1] == '"') {
                                quotes = true;
                                j += 2;
                                continue;
                            }
                            break;
                        }
                        j++;
                    }
                    end = j;
                    i = j + 1;
                    while (i < limit && data[i] != ',' && data[i] != '\n') {
                        i++; // not CSV the server writes: whatever follows the closing quote is dropped
                    }
                } else {
                    start = i;
                    while (i < limit && data[i] != ',' && data[i] != '\n') {
                        i++;
                    }
                    end = i > start && data[i - 1] == '\r' ? i - 1 : i;
                }
                if (count < KEPT_FIELDS) {
                    starts[count] = start;
                    ends[count] = end;
                    doubled[count] = quotes;
                }
                count++;
                if (i >= limit || data[i] == '\n') {
                    return i + 1;
                }
                i++;
            }
        }

        LogEntry entry() {
            var entry = new EntryBuilder();
            entry.time = LogTimes.parse(field(LOG_TIME));
            entry.user = field(USER);
            entry.database = field(DATABASE);
            entry.pid = EntryBuilder.integer(field(PID));
            entry.clientAddress = EntryBuilder.hostOnly(field(CONNECTION_FROM));
            entry.severity = field(SEVERITY);
            entry.sqlState = field(SQL_STATE);
            entry.message = field(MESSAGE);
            entry.detail = field(DETAIL);
            entry.hint = field(HINT);
            entry.internalQuery = field(INTERNAL_QUERY);
            entry.context = field(CONTEXT);
            entry.statement = field(QUERY);
            entry.application = field(APPLICATION);
            entry.backendType = field(BACKEND_TYPE);
            entry.queryId = EntryBuilder.longValue(field(QUERY_ID));
            return entry.build();
        }

        /** The field's text, null when the record has no such field or it is empty. */
        private String field(int index) {
            if (index >= count || starts[index] >= ends[index]) {
                return null;
            }
            String text = new String(data, starts[index], ends[index] - starts[index], StandardCharsets.UTF_8);
            return doubled[index] ? text.replace("\"\"", "\"") : text;
        }
    }
}
