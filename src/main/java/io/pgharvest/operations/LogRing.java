package io.pgharvest.operations;

import io.pgharvest.support.ChangeNotifier;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The last {@link #CAPACITY} log lines of this process, in memory only (nothing is written
 * anywhere), and the same lines grouped by cause ({@link LogCauses}): the console's log view. Every appended line advances {@link #changes()}, which the
 * blocking query of {@code GET /api/v1/logs} parks on.
 */
final class LogRing {

    static final int CAPACITY = 2000;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<LogLine> lines = new ArrayDeque<>(CAPACITY);
    private final ChangeNotifier changes = new ChangeNotifier(0);
    private final LogCauses causes = new LogCauses();
    private long sequence;

    void append(Instant time, String level, String logger, String thread, String message) {
        append(time, level, logger, thread, message, null);
    }

    /** A line about {@code source} (null when it names none): its cause counts the source. */
    void append(Instant time, String level, String logger, String thread, String message, String source) {
        long index;
        lock.lock();
        try {
            index = ++sequence;
            if (lines.size() == CAPACITY) {
                lines.removeFirst();
            }
            var line = new LogLine(index, time, level, logger, thread, LogScrubber.scrub(message));
            lines.addLast(line);
            causes.add(line, source);
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
}
