package io.pgharvest.model;

import java.util.List;

/**
 * Something besides the sinks that sees every published measurement (the recent window of the
 * console's charts). Called on the reaper's thread: an implementation hands the list off and returns
 * at once, never blocks, never throws, and drops (and counts) what it cannot keep. The list is
 * immutable and may be kept.
 */
@FunctionalInterface
public interface MeasurementObserver {

    void observe(List<Measurement> measurements);
}
