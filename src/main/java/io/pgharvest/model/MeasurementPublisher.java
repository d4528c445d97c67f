package io.pgharvest.model;

import java.util.List;

/**
 * How reapers hand measurements to the sinks. Implementations must never block on sink I/O:
 * they queue and return, and account for anything they cannot keep.
 */
@FunctionalInterface
public interface MeasurementPublisher {

    void publish(List<Measurement> measurements);
}
