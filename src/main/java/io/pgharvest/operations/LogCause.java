package io.pgharvest.operations;

import java.time.Instant;

/**
 * One cause of the collector's log as {@code GET /api/v1/logs/causes} shows it: the lines that say
 * the same thing, of one source or many.
 *
 * @param id the cause's number, for {@code GET /api/v1/logs/causes/{id}/sources}
 * @param sequence the {@link LogLine#sequence()} of its newest line: the blocking query's index
 * @param message the newest line's message, secrets scrubbed
 * @param first when its first line was logged
 * @param last when its newest line was logged
 * @param count how many lines it had since pgharvest started (or since it was last forgotten)
 * @param sources how many different sources its lines named
 */
public record LogCause(long id, long sequence, String level, String logger, String message, Instant first,
        Instant last, long count, long sources) {
}
