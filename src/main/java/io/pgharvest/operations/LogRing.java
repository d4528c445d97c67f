package io.pgharvest.operations;

import io.pgharvest.model.BoundedText;
import io.pgharvest.support.ChangeNotifier;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The newest log lines of this process, in memory only (nothing is written anywhere): the
 * console's log view, and the same lines grouped by cause ({@link LogCauses}, bounded on its own).
 * Bounded in lines and in bytes (pgharvest.log-view.*): a line's message is
 * cut and escaped ({@link BoundedText}) and scrubbed of secrets before it is counted and kept, and
 * the oldest lines go first. Every appended line advances {@link #changes()}, which the blocking
 * query of {@code GET /api/v1/logs} parks on.
 */
final class LogRing {

    /** What a kept line costs besides its texts: the record, its strings' headers, the deque slot. */
    static final int LINE_OVERHEAD_BYTES = 160;

    private final int maxLines;
    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<LogLine> lines = new ArrayDeque<>();
    private final ChangeNotifier changes = new ChangeNotifier(0);
    private final LogCauses causes = new LogCauses();
    private long sequence;
    private long bytes;

    LogRing(int maxLines, long maxBytes) {
        this.maxLines = maxLines;
        this.maxBytes = maxBytes;
    }

    void append(Instant time, String level, String logger, String thread, String message) {
        append(time, level, logger, thread, message, null);
    }

    /** A line about {@code source} (null when it names none): its cause counts the source. */
    void append(Instant time, String level, String logger, String thread, String message, String source) {
        var line = new LogLine(0, time, String.valueOf(level), BoundedText.of(String.valueOf(logger)),
                BoundedText.of(String.valueOf(thread)),
                LogScrubber.scrub(BoundedText.of(message)));
        long cost = bytesOf(line);
        long index;
        lock.lock();
        try {
            index = ++sequence;
            var kept = new LogLine(index, line.time(), line.level(), line.logger(), line.thread(), line.message());
            lines.addLast(kept);
            causes.add(kept, source);
            bytes += cost;
            while (lines.size() > maxLines || (bytes > maxBytes && lines.size() > 1)) {
                bytes -= bytesOf(lines.removeFirst());
            }
        } finally {
            lock.unlock();
        }
        changes.advanceTo(index);
    }

    /** Lines after {@code afterSequence}, oldest first, at most {@code limit} of the newest. */
    List<LogLine> after(long afterSequence, int limit) {
        lock.lock();
        try {
            var found = new ArrayList<LogLine>();
            var newestFirst = lines.descendingIterator();
            while (newestFirst.hasNext() && found.size() < limit) {
                LogLine line = newestFirst.next();
                if (line.sequence() <= afterSequence) {
                    break;
                }
                found.add(line);
            }
            return found.reversed();
        } finally {
            lock.unlock();
        }
    }

    /** The most lines the ring keeps. */
    int maxLines() {
        return maxLines;
    }

    /** Bytes the kept lines are counted at (see {@link LogViewProperties#maxBytes()}). */
    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Causes with a line after {@code afterSequence}, the one logged longest ago first. */
    List<LogCause> causesAfter(long afterSequence) {
        lock.lock();
        try {
            return causes.after(afterSequence);
        } finally {
            lock.unlock();
        }
    }

    /** The sources cause {@code id} concerns; empty when no such cause is kept. */
    Optional<List<String>> sourcesOf(long id) {
        lock.lock();
        try {
            return causes.sources(id);
        } finally {
            lock.unlock();
        }
    }

    ChangeNotifier changes() {
        return changes;
    }

    private static long bytesOf(LogLine line) {
        return LINE_OVERHEAD_BYTES + 2L * (line.level().length() + line.logger().length() + line.thread().length()
                + line.message().length());
    }
}
