package io.pgharvest.serverlog;

import io.pgharvest.serverlog.entry.LogEntry;
import io.pgharvest.serverlog.entry.LogEntryParser;
import io.pgharvest.store.LogPositions.LogPosition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Follows one destination's files from a read position, by file name and byte offset: the rest of
 * the file it was in, then each newer file from its start (a rotation), within a byte budget per
 * read so a log flood is read over several ticks instead of holding up the source's other metrics.
 * A file that shrank below the offset was truncated (log_truncate_on_rotation) and is read from its
 * start. Without a position (the source's first read) it starts at the end of the newest file, as
 * pgwatch does: what was logged before pgharvest watched is not read.
 *
 * <p>A file that no longer grows is at rest, so the parser may finish an entry whose end is only
 * known from the next entry's start (stderr); an older file than the newest is at rest by definition.
 */
final class LogFollower {

    static final int CHUNK = 1 << 20;

    private final Map<String, Long> sizesSeen = new HashMap<>();
    private long skippedBytes;

    /** What one read did. */
    record Read(LogPosition position, long bytes) {
    }

    /**
     * Reads what was written since {@code position} (null: start at the end).
     *
     * @param listed the destination's files, oldest first
     */
    Read follow(LogFiles files, List<LogFiles.LogFile> listed, LogDestination destination, LogEntryParser parser,
            LogPosition position, long budget, Consumer<LogEntry> out) throws Exception {
        if (listed.isEmpty()) {
            return new Read(position, 0);
        }
        LogFiles.LogFile newest = listed.getLast();
        if (position == null || !position.format().equals(destination.setting())) {
            remember(listed);
            return new Read(new LogPosition(destination.setting(), newest.name(), newest.size()), 0);
        }
        int index = indexOf(listed, position.file());
        String file = position.file();
        long offset = position.offset();
        if (index < 0) {
            // the file is gone (removed after rotation): continue with the files named after it
            index = firstNamedAfter(listed, position.file());
            if (index < 0) {
                remember(listed);
                return new Read(new LogPosition(destination.setting(), newest.name(), newest.size()), 0);
            }
            file = listed.get(index).name();
            offset = 0;
        }
        long read = 0;
        while (true) {
            LogFiles.LogFile current = listed.get(index);
            if (current.size() < offset) {
                offset = 0; // truncated and written again
            }
            boolean older = index < listed.size() - 1;
            boolean resting = older || Long.valueOf(current.size()).equals(sizesSeen.get(current.name()));
            while (offset < current.size() && read < budget) {
                int length = (int) Math.min(Math.min(CHUNK, budget - read), current.size() - offset);
                byte[] chunk = files.read(current.name(), offset, length);
                if (chunk.length == 0) {
                    break;
                }
                read += chunk.length;
                boolean atRest = resting && offset + chunk.length >= current.size();
                int consumed = parser.parse(chunk, chunk.length, atRest, out);
                if (consumed == 0 && chunk.length == CHUNK) {
                    consumed = chunk.length; // one entry longer than a chunk: skipped rather than stall
                    skippedBytes += consumed;
                }
                if (consumed == 0 && atRest && older) {
                    consumed = chunk.length; // a rotated file ends in half an entry: it never completes
                    skippedBytes += consumed;
                }
                if (consumed == 0) {
                    break; // only an unfinished entry is left: read again once it is complete
                }
                offset += consumed;
            }
            if (older && offset >= current.size() && read < budget) {
                index++;
                file = listed.get(index).name();
                offset = 0;
                continue;
            }
            file = current.name();
            break;
        }
        remember(listed);
        return new Read(new LogPosition(destination.setting(), file, offset), read);
    }

    /** Bytes of entries longer than a chunk, skipped since this follower started. */
    long skippedBytes() {
        return skippedBytes;
    }

    private void remember(List<LogFiles.LogFile> listed) {
        sizesSeen.clear();
        listed.forEach(f -> sizesSeen.put(f.name(), f.size()));
    }

    private static int indexOf(List<LogFiles.LogFile> listed, String name) {
        for (int i = 0; i < listed.size(); i++) {
            if (listed.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static int firstNamedAfter(List<LogFiles.LogFile> listed, String name) {
        for (int i = 0; i < listed.size(); i++) {
            if (listed.get(i).name().compareTo(name) > 0) {
                return i;
            }
        }
        return -1;
    }
}
