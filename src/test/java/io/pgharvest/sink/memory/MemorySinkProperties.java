package io.pgharvest.sink.memory;

import static io.pgharvest.sink.SettingChecks.checkRange;
import static io.pgharvest.sink.SettingChecks.orDefault;

import io.pgharvest.sink.SinkSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of a {@code test-memory} sink entry.
 *
 * @param capacity the most recent measurements kept
 * @param label shown in the sink's destination
 */
public record MemorySinkProperties(Integer capacity, String label) implements SinkSettings {

    public MemorySinkProperties {
        capacity = orDefault(capacity, 1000);
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        checkRange(problems, prefix + ".capacity", capacity, 1, 100_000);
        return problems;
    }

    @Override
    public String destination(Path dataDir) {
        return "memory" + (label == null ? "" : " (" + label + ")");
    }
}
