package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import java.util.List;

/**
 * Thrown by {@link Sink#write} when some measurements can never be written (their data is
 * unacceptable to the sink, not the sink unavailable): the rest of the batch WAS delivered, the
 * rejected ones are counted as dropped and not retried. Any other exception means "nothing of
 * this batch was delivered, retry it".
 */
public class SinkRejectedException extends Exception {

    private final transient List<Measurement> rejected;

    public SinkRejectedException(String message, List<Measurement> rejected, Throwable cause) {
        super(message, cause);
        this.rejected = List.copyOf(rejected);
    }

    public List<Measurement> rejected() {
        return rejected;
    }
}
