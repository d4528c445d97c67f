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

    /**
     * Checks cheaply whether the sink would accept a write now (e.g. {@code select 1}), so that a
     * sink is shown UP only after it answered and resumes within seconds of coming back instead
     * of after its full retry back-off.
     *
     * @return false when this sink has no probe (its next write is the probe); true when it answered
     * @throws Exception when it does not accept writes now
     */
    default boolean probe() throws Exception {
        return false;
    }

    @Override
    default void close() throws Exception {
    }
}
