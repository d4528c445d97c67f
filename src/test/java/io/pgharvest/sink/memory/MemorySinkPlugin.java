package io.pgharvest.sink.memory;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@code test-memory} kind of sink: a fixture that exists only on the test class path. */
public final class MemorySinkPlugin implements SinkPlugin<MemorySinkProperties> {

    public static final String TYPE = "test-memory";

    private static final PluginKind<MemorySinkProperties> KIND = new PluginKind<>(FAMILY, TYPE,
            "The most recent measurements in memory (tests only)", MemorySinkProperties.class, List.of(
                    new PluginOption("capacity", "`1000`", "The most recent measurements kept; 1 to 100000"),
                    new PluginOption("label", "none", "Shown in the destination")));

    /**
     * Every sink started under each name, so a test can read what it received: the test JVM keeps
     * several application contexts (one per distinct configuration), each with its own sink.
     */
    private static final Map<String, List<MemorySink>> STARTED = new ConcurrentHashMap<>();

    /** The last sink started under {@code name}. */
    public static MemorySink started(String name) {
        List<MemorySink> sinks = STARTED.getOrDefault(name, List.of());
        return sinks.isEmpty() ? null : sinks.getLast();
    }

    /** Every sink started under {@code name}, the oldest first. */
    public static List<MemorySink> allStarted(String name) {
        return List.copyOf(STARTED.getOrDefault(name, List.of()));
    }

    @Override
    public PluginKind<MemorySinkProperties> kind() {
        return KIND;
    }

    @Override
    public Sink create(SinkSetup<MemorySinkProperties> setup) {
        var sink = new MemorySink(setup.name(), setup.settings().capacity());
        STARTED.computeIfAbsent(setup.name(), n -> new CopyOnWriteArrayList<>()).add(sink);
        return sink;
    }
}
