package io.pgharvest.changes;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementObserver;
import io.pgharvest.model.MeasurementPublisher;
import java.util.List;

/**
 * Shows what goes to the sinks to the observers too (the recent window), after change detection, so
 * they see what the sinks see. Observers only take a hand-off; a failing one never keeps the
 * measurements from the sinks.
 */
final class ObservedPublisher implements MeasurementPublisher {

    private final MeasurementPublisher sinks;
    private final List<MeasurementObserver> observers;

    ObservedPublisher(MeasurementPublisher sinks, List<MeasurementObserver> observers) {
        this.sinks = sinks;
        this.observers = List.copyOf(observers);
    }

    @Override
    public void publish(List<Measurement> measurements) {
        sinks.publish(measurements);
        List<Measurement> shown = List.copyOf(measurements);
        for (MeasurementObserver observer : observers) {
            try {
                observer.observe(shown);
            } catch (RuntimeException e) {
                // An observer's own bug must not reach the reaper; the sinks have the data already.
            }
        }
    }
}
