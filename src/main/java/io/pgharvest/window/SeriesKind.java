package io.pgharvest.window;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a column's values are kept and shown. */
public enum SeriesKind {
    /** A level (connections, bytes, seconds): shown as read. */
    @JsonProperty("gauge") GAUGE,
    /** A cumulative counter (commits, bytes written): kept as read, shown as a rate per second. */
    @JsonProperty("rate") COUNTER,
    /** An amount per collection interval (query-insights deltas): shown as read, summed over a span. */
    @JsonProperty("delta") DELTA
}
