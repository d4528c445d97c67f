package io.pgharvest.kind;

/**
 * How much one metric's result may hold, so that no monitored server can fill pgharvest's heap
 * (a metric returning two million rows once stopped the API, the scrape endpoint and liveness).
 *
 * @param maxRows rows one metric may return on one tick ({@code pgharvest.reaper.max-result-rows});
 *     the server stops each statement one row past it
 * @param maxBytes bytes of rows one result may hold as the server sends them (its DataRow
 *     messages, {@code pgharvest.reaper.max-result-bytes}); rows past it are dropped as they
 *     arrive, before pgjdbc allocates them, and the metric fails
 */
public record ResultLimits(int maxRows, long maxBytes) {

    /** 64 MB: room for the row limit's 100,000 rows at about 670 bytes each. */
    public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

    /** 100,000 rows and 64 MB per metric. */
    public static final ResultLimits DEFAULT = new ResultLimits(100_000, DEFAULT_MAX_BYTES);

    public ResultLimits {
        if (maxRows < 1) {
            throw new IllegalArgumentException("the row limit must be positive, got " + maxRows);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("the byte limit must be positive, got " + maxBytes);
        }
    }

    /** {@link #maxBytes} as an operator wrote it: {@code 64MB}, {@code 512KB}, {@code 1000B}. */
    public String bytesText() {
        long kb = 1024;
        long mb = kb * 1024;
        if (maxBytes % mb == 0) {
            return maxBytes / mb + "MB";
        }
        return maxBytes % kb == 0 ? maxBytes / kb + "KB" : maxBytes + "B";
    }
}
