package io.pgharvest.window;

import java.time.Instant;

/**
 * What a view can say of one metric it reads, so an empty list is never mistaken for "nothing
 * there": {@code not-collected} (the source's selection lacks it), {@code waiting} (selected, not read
 * yet), {@code collected} (read at {@code readAt}, {@code rows} rows). A collected metric is
 * {@code stale} when its latest read is older than two of its intervals and ten seconds: the
 * source or the collector stopped reading it, and what the view shows is as of {@code readAt}.
 *
 * @param intervalSeconds the metric's interval in the source's selection, null when not selected
 * @param rowsNotKept why the view has none of the read's {@code rows} although it returned some (the
 *     window's memory bound refused them), null when they were kept: the view's empty list then
 *     means "not kept", never "none"
 */
record ReadState(String metric, String state, Integer intervalSeconds, Instant readAt, Integer rows, boolean stale,
        String rowsNotKept) {

    /** The reason a read's rows were not kept: the bound's setting, so an operator knows what to raise. */
    static final String WINDOW_FULL = "the recent window is full (pgharvest.window.max-memory)";

    static final String NOT_COLLECTED = "not-collected";
    static final String WAITING = "waiting";
    static final String COLLECTED = "collected";

    boolean collected() {
        return COLLECTED.equals(state);
    }
}
