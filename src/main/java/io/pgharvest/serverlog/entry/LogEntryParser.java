package io.pgharvest.serverlog.entry;

import java.util.function.Consumer;

/**
 * Finds the entries in bytes read from a log file. Only complete entries are given to the
 * consumer; the caller reads the rest again, with what the server appended, on its next read.
 *
 * <p>Parsers keep no state between calls: an entry whose end is not yet known is simply not
 * consumed, and read again next time. So one parser serves every file and every source.
 */
public interface LogEntryParser {

    /**
     * @param data bytes from the file, starting where the previous call's consumed bytes ended
     * @param length how many of them to read
     * @param atRest whether the file has not grown since the previous read and {@code data} reaches
     *     its end: an entry whose end is only known from the next one's start is complete then
     * @return how many bytes the complete entries take (the next read starts there)
     */
    int parse(byte[] data, int length, boolean atRest, Consumer<LogEntry> out);
}
