package io.pgharvest.window;

import java.time.Instant;

/**
 * A source's latest read of one metric: when, how many rows, and for the metrics the database views
 * show ({@link LatestReads#KEPT}) the columns they read of those rows ({@link ViewRows#EMPTY} for the
 * others, and for a read the memory budget refused).
 *
 * @param rowCount how many rows the read returned, whatever was kept of them
 * @param refused the view kept rows of this metric but the memory budget refused this read's: its
 *     empty {@code rows} mean "not kept", not "none"
 */
record Reading(String metric, Instant at, int rowCount, ViewRows rows, boolean refused) {

    /** What the window's memory budget holds for the kept rows. */
    long bytes() {
        return rows.bytes();
    }
}
