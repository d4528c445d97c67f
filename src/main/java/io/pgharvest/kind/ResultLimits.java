package io.pgharvest.kind;

/**
 * How much one metric's result may hold, so that no monitored server can fill pgharvest's heap
 * (a metric returning two million rows once stopped the API, the scrape endpoint and liveness).
 *
 * @param maxRows rows one metric may return on one tick ({@code pgharvest.reaper.max-result-rows});
 *     the server stops each statement one row past it
 */
public record ResultLimits(int maxRows) {

    /** 100,000 rows per metric. */
    public static final ResultLimits DEFAULT = new ResultLimits(100_000);

    public ResultLimits {
        if (maxRows < 1) {
            throw new IllegalArgumentException("the row limit must be positive, got " + maxRows);
        }
    }
}
