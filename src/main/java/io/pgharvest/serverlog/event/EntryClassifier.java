package io.pgharvest.serverlog.event;

import io.pgharvest.serverlog.entry.LogEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sorts one source's log entries into events of the {@link LogCategory categories}. Reads the
 * messages the server writes in English (lc_messages C or en); a translated log gives errors and
 * connection failures by SQLSTATE only. Stateful (the last checkpoint's reason, the query IDs of
 * recent pids), so each source has its own, used by its reaper's thread only.
 */
public final class EntryClassifier {

    private static final Pattern TEMP_FILE = Pattern.compile("^temporary file: path \"([^\"]*)\", size (\\d+)");
    private static final Pattern DURATION = Pattern.compile(
            "^duration: ([0-9.]+) ms  (statement|execute [^:]*|parse [^:]*|bind [^:]*|plan): ?", Pattern.DOTALL);

    private final CheckpointReading checkpoints = new CheckpointReading();
    private final LockReading locks = new LockReading();
    private final ActualPlanReading plans = new ActualPlanReading();

    /** The events {@code entry} is (none, one, or two: a deadlock is an error too), texts redacted by {@code texts}. */
    public List<LogEvent> classify(LogEntry entry, LogTexts texts) {
        locks.remember(entry);
        var events = new ArrayList<LogEvent>(2);
        String severity = entry.severity() == null ? "" : entry.severity();
        switch (severity) {
            case "LOG" -> {
                AutovacuumReading.read(entry).or(() -> checkpoints.read(entry))
                        .or(() -> locks.readWait(entry, texts)).or(() -> tempFile(entry, texts))
                        .or(() -> duration(entry, texts)).or(() -> ServerEventReading.read(entry, texts))
                        .ifPresent(events::add);
            }
            case "ERROR", "FATAL", "PANIC" -> {
                locks.readDeadlock(entry, texts).ifPresent(events::add);
                ConnectionFailures.read(entry).ifPresent(events::add);
                ServerEventReading.read(entry, texts).ifPresent(events::add);
                events.add(error(entry, texts));
            }
            default -> {
                // DEBUG, INFO, NOTICE, WARNING: server_log_event_counts counts them
            }
        }
        return events;
    }

    private static Optional<LogEvent> tempFile(LogEntry entry, LogTexts texts) {
        String message = entry.message();
        if (message == null || !message.startsWith("temporary file: ")) {
            return Optional.empty();
        }
        Matcher matched = TEMP_FILE.matcher(message);
        if (!matched.find()) {
            return Optional.empty();
        }
        String path = matched.group(1);
        return Optional.of(new EventRow(entry).queryId(entry)
                .put("file_name", path.substring(path.lastIndexOf('/') + 1))
                .put("size_bytes", Long.valueOf(matched.group(2)))
                .put("query", texts.statement(entry.statement()))
                .as(LogCategory.TEMP_FILES));
    }

    private Optional<LogEvent> duration(LogEntry entry, LogTexts texts) {
        String message = entry.message();
        if (message == null || !message.startsWith("duration: ")) {
            return Optional.empty();
        }
        Matcher matched = DURATION.matcher(message);
        if (!matched.find()) {
            return Optional.empty(); // log_duration's bare "duration: 1.2 ms": no statement to name
        }
        double milliseconds = Double.parseDouble(matched.group(1));
        String rest = message.substring(matched.end());
        if (matched.group(2).equals("plan")) {
            return plans.read(entry, milliseconds, rest, texts);
        }
        return Optional.of(new EventRow(entry).queryId(entry)
                .put("user_name", entry.user())
                .put("duration_ms", milliseconds)
                .put("step", matched.group(2).split(" ")[0])
                .put("query", texts.statement(rest))
                .as(LogCategory.SLOW_STATEMENTS));
    }

    private static LogEvent error(LogEntry entry, LogTexts texts) {
        String sqlState = entry.sqlState();
        return new EventRow(entry).queryId(entry)
                .tag("class", entry.sqlStateClass() == null ? "" : entry.sqlStateClass())
                .put("pid", null)
                .put("severity", entry.severity())
                .put("sqlstate", sqlState)
                .put("sqlstate_class", entry.sqlStateClass())
                .put("message", texts.message(entry.message()))
                .put("detail", texts.detail(entry.detail()))
                .put("count", 1L)
                .as(LogCategory.ERRORS);
    }
}
