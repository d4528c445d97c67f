package io.pgharvest.serverlog.entry;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * csvlog: one CSV record per entry, DETAIL, HINT, CONTEXT and the statement in fields of their
 * own, a record ending at a line feed outside double quotes (a message may span lines inside
 * its quoted field). The records found complete are read by Commons CSV. Columns as PostgreSQL
 * 14 and later write them (query_id the 26th).
 */
public final class CsvLogParser implements LogEntryParser {

    private static final CSVFormat FORMAT = CSVFormat.DEFAULT;
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

    @Override
    public int parse(byte[] data, int length, boolean atRest, Consumer<LogEntry> out) {
        int complete = completeRecords(data, length);
        if (complete == 0) {
            return 0;
        }
        String text = new String(data, 0, complete, StandardCharsets.UTF_8);
        try (CSVParser parser = FORMAT.parse(new StringReader(text))) {
            for (CSVRecord record : parser) {
                if (record.size() > MESSAGE) {
                    out.accept(entry(record));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not fail
        } catch (UncheckedIOException | IllegalStateException | IllegalArgumentException e) {
            // not CSV the server wrote (a file cut in the middle of a record): skip what was read
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

    private static LogEntry entry(CSVRecord record) {
        var entry = new EntryBuilder();
        entry.time = LogTimes.parse(field(record, LOG_TIME));
        entry.user = field(record, USER);
        entry.database = field(record, DATABASE);
        entry.pid = EntryBuilder.integer(field(record, PID));
        entry.clientAddress = EntryBuilder.hostOnly(field(record, CONNECTION_FROM));
        entry.severity = field(record, SEVERITY);
        entry.sqlState = field(record, SQL_STATE);
        entry.message = field(record, MESSAGE);
        entry.detail = field(record, DETAIL);
        entry.hint = field(record, HINT);
        entry.internalQuery = field(record, INTERNAL_QUERY);
        entry.context = field(record, CONTEXT);
        entry.statement = field(record, QUERY);
        entry.application = field(record, APPLICATION);
        entry.backendType = field(record, BACKEND_TYPE);
        entry.queryId = EntryBuilder.longValue(field(record, QUERY_ID));
        return entry.build();
    }

    private static String field(CSVRecord record, int index) {
        return index < record.size() ? EntryBuilder.emptyToNull(record.get(index)) : null;
    }
}
