package io.pgharvest.sink.postgres;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;

/** The {@code postgres} kind of sink; its connection pools share one housekeeping thread. */
public final class PostgresSinkPlugin implements SinkPlugin<PostgresSinkProperties> {

    private static final PluginKind<PostgresSinkProperties> KIND = new PluginKind<>(FAMILY, "postgres",
            "A PostgreSQL database laid out like pgwatch's: one time-partitioned table per metric, written with COPY",
            PostgresSinkProperties.class, List.of(
                new PluginOption("url", "required", "`postgresql://user:password@host:port/db?params` (libpq URI, several "
                        + "hosts allowed) or `jdbc:postgresql://…`. A secret: logs show it masked"),
                new PluginOption("user", "from the URL", "Overrides the URL's user"),
                new PluginOption("password", "from the URL", "Overrides the URL's password (keeps it out of the URL). "
                        + "A secret: never logged"),
                new PluginOption("retention", "`14d`", "Partitions entirely older than this are dropped; `0` keeps "
                        + "everything; else at least `1h`"),
                new PluginOption("partition-interval", "`1d`", "Time range of one partition; whole hours, at least `1h`"),
                new PluginOption("partitions-ahead", "`2`", "Future partitions kept created"),
                new PluginOption("maintenance-interval", "`1h`", "Period of partition pre-creation, retention and the "
                        + "listing refresh")));

    /** Created on first use, so a build that never writes to PostgreSQL starts no thread for it. */
    private SinkPoolThreads threads;

    @Override
    public PluginKind<PostgresSinkProperties> kind() {
        return KIND;
    }

    @Override
    public Sink create(SinkSetup<PostgresSinkProperties> setup) {
        return PostgresSink.create(setup.property(), setup.name(), setup.settings(), threads(), setup.catalog(),
                setup.clock());
    }

    private synchronized SinkPoolThreads threads() {
        if (threads == null) {
            threads = new SinkPoolThreads();
        }
        return threads;
    }

    /** Called after the sinks (created later, closed earlier) are closed. */
    @Override
    public synchronized void close() {
        if (threads != null) {
            threads.close();
            threads = null;
        }
    }
}
