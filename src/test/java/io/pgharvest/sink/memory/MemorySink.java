package io.pgharvest.sink.memory;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.Sink;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Keeps the most recent measurements in memory, for tests to read. */
public final class MemorySink implements Sink {

    private final String name;
    private final int capacity;
    private final ArrayDeque<Measurement> kept = new ArrayDeque<>();
    /**
     * The sources it was written measurements of (at most {@link #MAX_SOURCES}): a test finds its own
     * there after the most recent measurements have moved on (a shared application context's other
     * sources write thousands a second).
     */
    private final Set<String> sources = new HashSet<>();
    private boolean closed;

    private static final int MAX_SOURCES = 100_000;

    MemorySink(String name, int capacity) {
        this.name = name;
        this.capacity = capacity;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized void write(List<Measurement> batch) {
        for (Measurement measurement : batch) {
            if (kept.size() == capacity) {
                kept.removeFirst();
            }
            kept.addLast(measurement);
            if (sources.size() < MAX_SOURCES) {
                sources.add(measurement.source());
            }
        }
    }

    @Override
    public boolean probe() {
        return true;
    }

    /** What was written, oldest first. */
    public synchronized List<Measurement> measurements() {
        return List.copyOf(kept);
    }

    /** Whether a measurement of {@code source} was written to this sink. */
    public synchronized boolean wrote(String source) {
        return sources.contains(source);
    }

    public synchronized boolean closed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }
}
