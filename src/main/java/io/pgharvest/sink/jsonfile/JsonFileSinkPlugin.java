package io.pgharvest.sink.jsonfile;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkOption;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import java.nio.file.Path;
import java.util.List;

/** The {@code jsonfile} kind of sink: one JSON object per measurement per line, rotated by size. */
public final class JsonFileSinkPlugin implements SinkPlugin<JsonFileSinkProperties> {

    private static final List<SinkOption> OPTIONS = List.of(
            new SinkOption("path", "`<data-dir>/measurements.jsonl`", "The file written"),
            new SinkOption("rotation-size", "`64MB`", "The file is rotated when a write takes it past this size "
                    + "(at least 1KB)"),
            new SinkOption("kept-files", "`5`", "Rotated files kept besides the current one"));

    @Override
    public String type() {
        return "jsonfile";
    }

    @Override
    public String description() {
        return "A file with one JSON object per measurement per line, rotated by size";
    }

    @Override
    public Class<JsonFileSinkProperties> settingsClass() {
        return JsonFileSinkProperties.class;
    }

    @Override
    public List<SinkOption> options() {
        return OPTIONS;
    }

    @Override
    public List<String> problems(JsonFileSinkProperties settings, String prefix) {
        return settings.problems(prefix);
    }

    @Override
    public String destination(JsonFileSinkProperties settings, Path dataDir) {
        return settings.file(dataDir).toString();
    }

    @Override
    public Sink create(SinkSetup<JsonFileSinkProperties> setup) {
        return JsonLinesSink.create(setup.name(), setup.settings().file(setup.dataDir()), setup.settings());
    }
}
