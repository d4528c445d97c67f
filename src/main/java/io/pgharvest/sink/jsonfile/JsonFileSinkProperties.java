package io.pgharvest.sink.jsonfile;

import static io.pgharvest.sink.SettingChecks.checkRange;
import static io.pgharvest.sink.SettingChecks.orDefault;

import io.pgharvest.sink.SinkSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.util.unit.DataSize;

/**
 * The options of a {@code jsonfile} sink entry of {@code pgharvest.sinks}.
 *
 * @param path the file written; {@code <data-dir>/measurements.jsonl} when absent
 * @param rotationSize the file is rotated when a write takes it past this size
 * @param keptFiles rotated files kept besides the current one
 */
public record JsonFileSinkProperties(String path, DataSize rotationSize, Integer keptFiles) implements SinkSettings {

    /** The file written when {@code path} is absent, below the data directory. */
    static final String DEFAULT_FILE = "measurements.jsonl";

    /** Absent options take their documented defaults here. */
    public JsonFileSinkProperties {
        path = path == null || path.isBlank() ? null : path;
        rotationSize = orDefault(rotationSize, DataSize.ofMegabytes(64));
        keptFiles = orDefault(keptFiles, 5);
    }

    /** A sink writing {@code path} with every other option at its default. */
    public static JsonFileSinkProperties writing(Path path) {
        return new JsonFileSinkProperties(path.toString(), null, null);
    }

    /** The file, absolute. */
    @Override
    public String destination(Path dataDir) {
        return file(dataDir).toString();
    }

    /** The file this sink writes, absolute. */
    Path file(Path dataDir) {
        return (path == null ? dataDir.resolve(DEFAULT_FILE) : Path.of(path)).toAbsolutePath().normalize();
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        if (rotationSize.toBytes() < 1024) {
            problems.add(prefix + ".rotation-size must be at least 1KB (was " + rotationSize + ")");
        }
        checkRange(problems, prefix + ".kept-files", keptFiles, 0, 10_000);
        return problems;
    }
}
