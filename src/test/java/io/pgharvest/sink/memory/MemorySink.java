package io.pgharvest.sink.memory;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.Sink;
import java.util.ArrayDeque;
import java.util.List;

/** Keeps the most recent measurements in memory, for tests to read. */
public final class MemorySink implements Sink {

    private final String name;
    private final int capacity;
    private final ArrayDeque<Measurement> kept = new ArrayDeque<>();
    private boolean closed;

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

    public synchronized boolean closed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }
}
