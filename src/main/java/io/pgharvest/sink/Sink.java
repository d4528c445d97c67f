package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import java.util.List;

/**
 * A destination for measurements. {@link #write} is called from the sink's own writer thread,
 * never from a reaper, and may block on I/O; throwing means "not delivered, keep and retry".
 */
public interface Sink extends AutoCloseable {

    /** A short stable name for logs, health and meters, e.g. {@code postgres} or {@code jsonfile}. */
    String name();

    void write(List<Measurement> batch) throws Exception;

    @Override
    default void close() throws Exception {
    }
}
