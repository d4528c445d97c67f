package io.pgharvest.sink;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where measurements go. Validated while binding: an invalid entry fails start-up with a message
 * naming the property, e.g. {@code pgharvest.sinks[0].url}.
 *
 * @param dataDir the data directory; spill logs live under {@code <data-dir>/spill/<sink>/}
 * @param sinks the sinks; when empty, a jsonfile sink writing
 *     {@code <data-dir>/measurements.jsonl} and a prometheus endpoint on port 9187
 */
@ConfigurationProperties("pgharvest")
public record SinksProperties(@DefaultValue("./pgharvest-data") Path dataDir, List<SinkProperties> sinks) {

    public SinksProperties {
        dataDir = dataDir == null ? Path.of("./pgharvest-data") : dataDir;
        sinks = sinks == null ? List.of() : List.copyOf(sinks);
        var problems = new ArrayList<String>();
        for (int i = 0; i < sinks.size(); i++) {
            problems.addAll(sinks.get(i).problems("pgharvest.sinks[" + i + "]"));
        }
        if (problems.isEmpty()) {
            sinks = named(sinks, problems);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("Invalid sink configuration: " + String.join("; ", problems));
        }
    }

    /** The sinks to run: the configured ones, or the embedded default when none are configured. */
    public List<SinkProperties> effectiveSinks() {
        if (sinks.isEmpty()) {
            return List.of(
                    SinkProperties.defaults(SinkType.JSONFILE, defaultJsonFile().toString()).withName("jsonfile"),
                    SinkProperties.defaults(SinkType.PROMETHEUS, null).withName("prometheus"));
        }
        return sinks.stream()
                .map(sink -> sink.type() == SinkType.JSONFILE && (sink.path() == null || sink.path().isBlank())
                        ? sink.withPath(defaultJsonFile().toString())
                        : sink)
                .toList();
    }

    /** The spill directory of one sink. */
    public Path spillDir(String sinkName) {
        return dataDir.resolve("spill").resolve(sinkName);
    }

    private Path defaultJsonFile() {
        return dataDir.resolve("measurements.jsonl");
    }

    /** Gives every sink a unique name: its own, its type, or type-index when a type repeats. */
    private static List<SinkProperties> named(List<SinkProperties> sinks, List<String> problems) {
        Map<SinkType, Integer> perType = new HashMap<>();
        sinks.forEach(sink -> perType.merge(sink.type(), 1, Integer::sum));
        var names = new HashSet<String>();
        var result = new ArrayList<SinkProperties>();
        for (int i = 0; i < sinks.size(); i++) {
            SinkProperties sink = sinks.get(i);
            String name = sink.name() != null ? sink.name()
                    : perType.get(sink.type()) == 1 ? sink.type().key() : sink.type().key() + "-" + i;
            if (!names.add(name)) {
                problems.add("pgharvest.sinks[" + i + "].name '" + name + "' is used by another sink");
            }
            result.add(sink.withName(name));
        }
        return List.copyOf(result);
    }
}
