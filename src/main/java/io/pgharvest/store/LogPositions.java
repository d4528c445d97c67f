package io.pgharvest.store;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How far each source's server log has been read for log insights, kept in the configuration
 * store (a file in the data directory, or a table of the configuration database), so that a
 * restart of pgharvest, or another instance of the fleet taking the source over, continues where
 * the last read ended: no event read twice, none skipped.
 *
 * <p>Saved after each read that moved; a save that fails throws {@link StoreUnavailableException}
 * and is made again with the next read. Thread-safe: every source's reaper saves its own position.
 */
public interface LogPositions {

    /** Where {@code source}'s log was last read up to, empty when it never was (or the source was deleted). */
    Optional<LogPosition> find(String source);

    /** Records where {@code source}'s log has been read up to. */
    void save(String source, LogPosition position);

    /**
     * @param format the log format read ({@code csvlog}, {@code jsonlog}, {@code stderr}): a position
     *     in another format's files means nothing
     * @param file the name of the log file in the log directory
     * @param offset the byte offset in it up to which every entry was read
     */
    record LogPosition(String format, String file, long offset) {

        public LogPosition {
            if (format == null || file == null || offset < 0) {
                throw new IllegalArgumentException("a log position needs a format, a file and an offset >= 0");
            }
        }
    }

    /** Positions kept in memory only (tests, and a process that must not write): a restart starts at the end. */
    static LogPositions inMemory() {
        Map<String, LogPosition> positions = new ConcurrentHashMap<>();
        return new LogPositions() {
            @Override
            public Optional<LogPosition> find(String source) {
                return Optional.ofNullable(positions.get(source));
            }

            @Override
            public void save(String source, LogPosition position) {
                positions.put(source, position);
            }
        };
    }
}
