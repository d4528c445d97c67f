package io.pgharvest.history.postgres;

import io.pgharvest.history.HistoryReader;
import io.pgharvest.history.HistoryReaderPlugin;
import io.pgharvest.sink.dispatch.ConfiguredSinks;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;
import java.util.Optional;

/** The {@code postgres} kind of history reader: reads a storage database in pgwatch's layout. */
public final class PostgresHistoryPlugin implements HistoryReaderPlugin<PostgresHistorySettings> {

    private static final PluginKind<PostgresHistorySettings> KIND = new PluginKind<>(FAMILY, "postgres",
            "A PostgreSQL storage database in pgwatch's layout (pgharvest's postgres sink or pgwatch's own), read"
                    + " aggregated on the server", PostgresHistorySettings.class, List.of(
                new PluginOption("url", "required (a postgres sink's own URL when derived from it)",
                        "`postgresql://user:password@host:port/db` or `jdbc:postgresql://…`. A secret: never logged"),
                new PluginOption("user", "from the URL", "Overrides the URL's user; a read-only role is enough"),
                new PluginOption("password", "from the URL", "Overrides the URL's password. A secret: never logged"),
                new PluginOption("pool-size", "`2`", "The reader's own connections, 1 to 16"),
                new PluginOption("statement-timeout", "`10s`", "The longest one read runs on the server, 100ms to 5m"),
                new PluginOption("retention", "`0` (the sink's retention when derived from it)", "How far back the "
                        + "database keeps rows: a range starting earlier is refused; `0` reads any range")));

    @Override
    public PluginKind<PostgresHistorySettings> kind() {
        return KIND;
    }

    @Override
    public HistoryReader create(String name, PostgresHistorySettings settings) {
        return PostgresHistoryReader.open(name, settings);
    }

    /** A postgres sink's database, with the sink's retention. */
    @Override
    public Optional<PostgresHistorySettings> readerOf(ConfiguredSinks.Entry sink) {
        if (sink.settings() instanceof PostgresSinkProperties postgres) {
            return Optional.of(new PostgresHistorySettings(postgres.url(), postgres.user(), postgres.password(),
                    null, null, postgres.retention()));
        }
        return Optional.empty();
    }
}
