package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.delivery.DeliverySettings;
import java.util.Objects;

/**
 * A started sink with what its channel needs to know about it.
 *
 * @param type its kind's type, as the status API shows it
 * @param destination where it writes, without credentials; null when unknown
 * @param sink the sink
 * @param delivery how its queue batches, spills and retries
 */
public record ConfiguredSink(String type, String destination, Sink sink, DeliverySettings delivery) {

    public ConfiguredSink {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(delivery, "delivery");
    }
}
