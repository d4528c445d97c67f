package io.pgharvest.serverlog.event;

import io.pgharvest.serverlog.entry.LogEntry;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checkpointer's reports ({@code log_checkpoints}): the reason comes from the
 * {@code checkpoint starting: ...} line, the numbers from {@code checkpoint complete: ...} (and
 * the same for a standby's restartpoints). Stateful: it remembers the last reason it saw, for
 * the one checkpointer of the server.
 */
final class CheckpointReading {

    private static final Pattern STARTING = Pattern.compile("^(checkpoint|restartpoint) starting: ?(.*)$");
    private static final Pattern COMPLETE = Pattern.compile("^(checkpoint|restartpoint) complete: ");
    private static final Pattern BUFFERS = Pattern.compile("wrote (\\d+) buffers");
    private static final Pattern WAL_FILES = Pattern.compile("(\\d+) WAL file\\(s\\) added, (\\d+) removed, (\\d+) recycled");
    private static final Pattern TIMES = Pattern.compile("write=([0-9.]+) s, sync=([0-9.]+) s, total=([0-9.]+) s");
    private static final Pattern SYNC_FILES = Pattern.compile("sync files=(\\d+)");
    private static final Pattern DISTANCE = Pattern.compile("distance=(\\d+) kB, estimate=(\\d+) kB");

    private String reason;

    Optional<LogEvent> read(LogEntry entry) {
        String message = entry.message();
        if (message == null || !(message.startsWith("checkpoint ") || message.startsWith("restartpoint "))) {
            return Optional.empty();
        }
        Matcher starting = STARTING.matcher(message);
        if (starting.find()) {
            reason = starting.group(2).strip();
            return Optional.empty();
        }
        Matcher complete = COMPLETE.matcher(message);
        if (!complete.find()) {
            return Optional.empty();
        }
        Matcher walFiles = WAL_FILES.matcher(message);
        Matcher times = TIMES.matcher(message);
        Matcher distance = DISTANCE.matcher(message);
        var row = new EventRow(entry)
                .put("kind", complete.group(1))
                .put("reason", reason)
                .number("buffers_written", BUFFERS.matcher(message), 1)
                .number("wal_files_added", walFiles, 1)
                .number("wal_files_removed", walFiles, 2)
                .number("wal_files_recycled", walFiles, 3)
                .decimal("write_s", times, 1)
                .decimal("sync_s", times, 2)
                .decimal("total_s", times, 3)
                .number("sync_files", SYNC_FILES.matcher(message), 1)
                .number("distance_kb", distance, 1)
                .number("estimate_kb", distance, 2);
        reason = null;
        return Optional.of(row.as(LogCategory.CHECKPOINTS));
    }
}
