package io.pgharvest.sink.jsonfile;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkKind;
import io.pgharvest.sink.SinkOption;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import java.util.List;

/** The {@code jsonfile} kind of sink: one JSON object per measurement per line, rotated by size. */
public final class JsonFileSinkPlugin implements SinkPlugin<JsonFileSinkProperties> {

    private static final SinkKind<JsonFileSinkProperties> KIND = new SinkKind<>("jsonfile",
            "A file with one JSON object per measurement per line, rotated by size", JsonFileSinkProperties.class,
            List.of(
                new SinkOption("path", "`<data-dir>/measurements.jsonl`", "The file written"),
                new SinkOption("rotation-size", "`64MB`", "The file is rotated when a write takes it past this size "
                        + "(at least 1KB)"),
                new SinkOption("kept-files", "`5`", "Rotated files kept besides the current one")));

    @Override
    public SinkKind<JsonFileSinkProperties> kind() {
        return KIND;
    }

    @Override
    public Sink create(SinkSetup<JsonFileSinkProperties> setup) {
        return JsonLinesSink.create(setup.name(), setup.settings().file(setup.dataDir()), setup.settings());
    }
}
