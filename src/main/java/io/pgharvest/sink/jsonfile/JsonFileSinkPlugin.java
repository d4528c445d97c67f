package io.pgharvest.sink.jsonfile;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;

/** The {@code jsonfile} kind of sink: one JSON object per measurement per line, rotated by size. */
public final class JsonFileSinkPlugin implements SinkPlugin<JsonFileSinkProperties> {

    private static final PluginKind<JsonFileSinkProperties> KIND = new PluginKind<>(FAMILY, "jsonfile",
            "A file with one JSON object per measurement per line, rotated by size", JsonFileSinkProperties.class,
            List.of(
                new PluginOption("path", "`<data-dir>/measurements.jsonl`", "The file written"),
                new PluginOption("rotation-size", "`64MB`", "The file is rotated when a write takes it past this size "
                        + "(at least 1KB)"),
                new PluginOption("kept-files", "`5`", "Rotated files kept besides the current one")));

    @Override
    public PluginKind<JsonFileSinkProperties> kind() {
        return KIND;
    }

    @Override
    public Sink create(SinkSetup<JsonFileSinkProperties> setup) {
        return JsonLinesSink.create(setup.name(), setup.settings().file(setup.dataDir()), setup.settings());
    }
}
