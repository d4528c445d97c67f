package io.pgharvest.operations;

import java.time.Instant;

/**
 * One of the collector's own log lines as {@code GET /api/v1/logs} shows it, secrets scrubbed.
 *
 * @param sequence position in the ring since start, increasing by one per line; the blocking
 *     query's index
 */
public record LogLine(long sequence, Instant time, String level, String logger, String thread, String message) {
}
