package io.pgharvest.window;

import java.time.Instant;

/**
 * A source's latest key numbers for the fleet overview; a number the source does not collect (or
 * has not collected twice yet, for a rate) is null.
 *
 * @param source the source name
 * @param tps transactions (commits and rollbacks) per second between the last two reads of db_stats
 * @param connections sessions of the database (backends' total, else db_stats' numbackends)
 * @param sizeBytes database size (db_size)
 * @param lagBytes replication lag in bytes: the largest replay lag of the primary's standbys, or on a
 *     standby the WAL it has received and not replayed
 * @param updated when the newest point of these arrived
 */
record KeyNumbers(String source, Double tps, Double connections, Double sizeBytes, Double lagBytes, Instant updated) {
}
