package io.pgharvest.serverlog.entry;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.regex.Matcher;

/**
 * stderr files of the logging collector, read with the server's {@code log_line_prefix}
 * ({@link LinePrefix}). An entry is its first line ({@code prefix SEVERITY:  message}), the lines
 * the server continues it with (they start with a tab: a message or a plan over several lines),
 * and the lines of its DETAIL, HINT, CONTEXT, STATEMENT, QUERY and LOCATION, each prefixed again.
 * An entry is complete when the next one starts, or when the file is at rest.
 *
 * <p>A line that neither has the prefix nor continues an entry (something else wrote to the
 * server's stderr: a library, a crashing child) ends the entry before it and is skipped.
 */
public final class StderrLogParser implements LogEntryParser {

    private final LinePrefix prefix;

    public StderrLogParser(LinePrefix prefix) {
        this.prefix = prefix;
    }

    public LinePrefix prefix() {
        return prefix;
    }

    @Override
    public int parse(byte[] data, int length, boolean atRest, Consumer<LogEntry> out) {
        var entry = new Building();
        int entryStart = 0;
        int lineStart = 0;
        for (int i = 0; i < length; i++) {
            if (data[i] != '\n') {
                continue;
            }
            int end = i > lineStart && data[i - 1] == '\r' ? i - 1 : i;
            String line = new String(data, lineStart, end - lineStart, StandardCharsets.UTF_8);
            if (!line.isEmpty() && line.charAt(0) == '\t') {
                entry.continueWith(line.substring(1));
            } else {
                Matcher matched = prefix.matcher(line);
                if (matched.lookingAt()) {
                    String severity = matched.group(prefix.severityGroup());
                    String text = line.substring(matched.end());
                    if (!entry.attach(severity, text)) {
                        entry.emitTo(out);
                        entryStart = lineStart;
                        entry.start(prefix, matched, severity, text);
                    }
                } else {
                    entry.emitTo(out);
                    entryStart = i + 1;
                }
            }
            lineStart = i + 1;
        }
        if (atRest && lineStart == length) {
            entry.emitTo(out);
            return length;
        }
        return entry.isOpen() ? entryStart : lineStart;
    }

    /** The entry being read; one part of it (message, DETAIL ...) takes the continuation lines. */
    private static final class Building {

        private EntryBuilder entry;
        private StringBuilder part;
        private String partName;
        private int chars;

        boolean isOpen() {
            return entry != null;
        }

        void start(LinePrefix prefix, Matcher matched, String severity, String text) {
            entry = new EntryBuilder();
            prefix.fill(matched, entry);
            entry.severity = severity;
            partName = "MESSAGE";
            part = new StringBuilder(text);
            chars = text.length();
        }

        void continueWith(String text) {
            if (entry != null && chars < LogEntry.MAX_CHARS) {
                part.append('\n').append(text);
                chars += text.length() + 1;
            }
        }

        /** Adds a DETAIL ... line to the open entry; false when the line starts an entry of its own. */
        boolean attach(String severity, String text) {
            if (entry == null || !isAttachment(severity)) {
                return false;
            }
            close();
            partName = severity;
            part = new StringBuilder(chars < LogEntry.MAX_CHARS ? text : "");
            chars += text.length();
            return true;
        }

        void emitTo(Consumer<LogEntry> out) {
            if (entry == null) {
                return;
            }
            close();
            out.accept(entry.build());
            entry = null;
        }

        private void close() {
            String text = part.toString();
            switch (partName) {
                case "MESSAGE" -> entry.message = text;
                case "DETAIL" -> entry.detail = text;
                case "HINT" -> entry.hint = text;
                case "CONTEXT" -> entry.context = text;
                case "STATEMENT" -> entry.statement = text;
                case "QUERY" -> entry.internalQuery = text;
                default -> {
                    // LOCATION: where in the server's source, not part of the record
                }
            }
        }

        private static boolean isAttachment(String severity) {
            return switch (severity) {
                case "DETAIL", "HINT", "CONTEXT", "STATEMENT", "QUERY", "LOCATION" -> true;
                default -> false;
            };
        }
    }
}
