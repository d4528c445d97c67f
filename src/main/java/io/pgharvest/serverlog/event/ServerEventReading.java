package io.pgharvest.serverlog.event;

import io.pgharvest.serverlog.entry.LogEntry;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What happened to the server itself (log_server_events, tag {@code kind}): crash and crash
 * recovery (a backend killed, the restart, redo from where to where and how long), a standby's
 * life (standby mode, consistent state, streaming from the primary and its end, promotion with its
 * timeline), start-up and shutdown, and running out of memory or disk. Recognised by message (in
 * English) and, for memory and disk, also by SQLSTATE (53200, 53100) or the system's "No space left
 * on device" (an error of any class, e.g. 58030 when a WAL or temp file write fails).
 */
final class ServerEventReading {

    private record Kind(String name, Pattern message) {
    }

    /** First match wins; each pattern is matched at the message's start. */
    private static final List<Kind> KINDS = List.of(
            kind("backend_crashed", ".+ \\(PID \\d+\\) (was terminated by signal|exited with exit code [1-9])"),
            kind("crash_restart", "all server processes terminated; reinitializing"),
            kind("recovery_started", "database system was (interrupted|not properly shut down)"),
            kind("redo_started", "redo starts at "),
            kind("redo_done", "redo done at "),
            kind("standby_mode", "entering standby mode"),
            kind("consistent", "consistent recovery state reached"),
            kind("streaming_started", "started streaming WAL from primary"),
            kind("streaming_ended", "(replication terminated by primary server|could not receive data from WAL stream)"),
            kind("primary_unreachable", "could not connect to the primary server"),
            kind("walsender_timeout", "terminating walsender process due to replication timeout"),
            kind("promoted", "received promote request"),
            kind("new_timeline", "selected new timeline ID"),
            kind("ready", "database system is ready to accept (read-only )?connections"),
            kind("shutdown", "database system is shut down"));
    private static final Pattern LSN = Pattern.compile("\\b([0-9A-F]{1,8}/[0-9A-F]{1,8})\\b");
    private static final Pattern TIMELINE = Pattern.compile("(?:timeline|timeline ID:) (\\d+)");
    private static final Pattern ELAPSED = Pattern.compile("elapsed: ([0-9.]+) s");
    private static final String OUT_OF_MEMORY = "53200";
    private static final String DISK_FULL = "53100";

    private ServerEventReading() {
    }

    private static Kind kind(String name, String message) {
        return new Kind(name, Pattern.compile(message));
    }

    static Optional<LogEvent> read(LogEntry entry, LogTexts texts) {
        String message = entry.message() == null ? "" : entry.message();
        String kind = resourceKind(entry, message);
        if (kind == null) {
            kind = kindOf(message);
        }
        if (kind == null) {
            return Optional.empty();
        }
        Matcher lsn = LSN.matcher(message);
        Matcher timeline = TIMELINE.matcher(message);
        return Optional.of(new EventRow(entry).queryId(entry).tag("kind", kind)
                .put("severity", entry.severity())
                .put("sqlstate", entry.sqlState())
                .put("lsn", lsn.find() ? lsn.group(1) : null)
                .put("timeline", timeline.find() ? timeline.group(1) : null)
                .decimal("elapsed_s", ELAPSED.matcher(message), 1)
                .put("message", texts.message(message))
                .as(LogCategory.SERVER_EVENTS));
    }

    /**
     * The first kind whose pattern matches at the message's start. {@code lookingAt}, not {@code find}:
     * find tries an anchored pattern at every offset of the message, 15 patterns over each 1 KB line
     * of a flood.
     */
    private static String kindOf(String message) {
        for (Kind kind : KINDS) {
            if (kind.message().matcher(message).lookingAt()) {
                return kind.name();
            }
        }
        return null;
    }

    /** out_of_memory or out_of_disk by SQLSTATE or the system's words, else null. */
    private static String resourceKind(LogEntry entry, String message) {
        if (OUT_OF_MEMORY.equals(entry.sqlState()) || message.startsWith("out of memory")) {
            return "out_of_memory";
        }
        if (DISK_FULL.equals(entry.sqlState()) || message.endsWith("No space left on device")) {
            return "out_of_disk";
        }
        return null;
    }
}
