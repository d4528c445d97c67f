package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.SinkSettings;
import java.util.List;

/**
 * The sinks pgharvest runs, as bound from {@code pgharvest.sinks} (or the defaults when none are
 * configured): what a reader of their history needs to know (which kinds write where), never the
 * sinks themselves.
 */
public final class ConfiguredSinks {

    /**
     * One sink entry.
     *
     * @param property where it was configured, e.g. {@code pgharvest.sinks[0]}
     * @param name the sink's name
     * @param type its kind
     * @param settings its kind's bound settings (may hold secrets: never log them)
     */
    public record Entry(String property, String name, String type, SinkSettings settings) {
    }

    private final List<BoundSink> bound;
    private final boolean implicit;

    ConfiguredSinks(List<BoundSink> bound, boolean implicit) {
        this.bound = List.copyOf(bound);
        this.implicit = implicit;
    }

    /** The entries in configuration order. */
    public List<Entry> entries() {
        return bound.stream().map(sink -> new Entry(sink.property(), sink.name(), sink.plugin().kind().type(),
                sink.settings())).toList();
    }

    List<BoundSink> bound() {
        return bound;
    }

    /** True when none were configured and the defaults run. */
    boolean implicit() {
        return implicit;
    }
}
