package io.pgharvest.sink;

import java.util.Locale;

/** The kinds of sink pgharvest can write to; bound from {@code pgharvest.sinks[i].type}. */
public enum SinkType {

    /** A PostgreSQL database with pgwatch's storage layout. */
    POSTGRES,

    /** A scrape endpoint in the Prometheus text exposition format. */
    PROMETHEUS,

    /** A rotated file with one JSON object per measurement per line. */
    JSONFILE,

    /** Every sample, with its collection time, sent to a receiver of the Prometheus remote-write protocol. */
    PROMETHEUS_REMOTE_WRITE;

    /** The lower-case, dash-separated spelling used in configuration and as the default sink name. */
    public String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
