package io.pgharvest.window;

import java.time.Instant;

/**
 * A source's key numbers for the fleet overview; a number the source does not collect (or has not
 * collected twice yet, for a rate) is null. Live (no range) they are the latest reads; over a range
 * (docs/history.md) each is what an operator asks of a range: the mean rate, the mean and the peak,
 * the size at the end, the worst lag.
 *
 * @param source the source name
 * @param tps transactions (commits and rollbacks) per second: live between the last two reads of
 *     db_stats; over a range the transactions between its collections divided by their seconds (the mean)
 * @param connections sessions of the database (backends' total, else db_stats' numbackends): live
 *     the latest, over a range the mean
 * @param connectionsMax the same sessions' highest read (live: the latest)
 * @param sizeBytes database size (db_size), the latest read (over a range: the last read in it)
 * @param lagBytes replication lag in bytes: the largest replay lag of the primary's standbys, or on a
 *     standby the WAL it has received and not replayed; live the latest, over a range the highest
 * @param updated when the newest point of these arrived (live only)
 * @param store which store answered: window, snapshot, postgres, prometheus; null when none holds the source
 * @param error null, or why there are no numbers (the store's name and the cause, never a secret)
 */
public record KeyNumbers(String source, Double tps, Double connections, Double connectionsMax, Double sizeBytes,
        Double lagBytes, Instant updated, String store, String error) {

    /** Whether it has no number at all (a store that holds none of the source in the range); not a JSON property. */
    boolean noNumber() {
        return tps == null && connections == null && connectionsMax == null && sizeBytes == null && lagBytes == null;
    }

    /** A source with no numbers, and why. */
    public static KeyNumbers none(String source, String store, String error) {
        return new KeyNumbers(source, null, null, null, null, null, null, store, error);
    }
}
