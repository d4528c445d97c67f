package io.pgharvest.history;

import io.pgharvest.sink.dispatch.ConfiguredSinks;
import io.pgharvest.support.plugin.Plugin;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.Optional;

/**
 * A kind of history reader (family {@code history reader}), registered in
 * {@code META-INF/services/io.pgharvest.history.HistoryReaderPlugin}: an entry of
 * {@code pgharvest.history} names it by type, or it reads what a configured sink writes.
 *
 * @param <S> its settings record
 */
public interface HistoryReaderPlugin<S extends Record & PluginSettings> extends Plugin<S> {

    /** The family of every history reader kind, as messages name it. */
    String FAMILY = "history reader";

    /** Every kind registered on the class path, the application's own first. */
    static PluginRegistry<HistoryReaderPlugin<?>> registry() {
        return PluginRegistry.load(HistoryReaderPlugin.class);
    }

    /**
     * A reader of {@code settings}; connects lazily (a store that is down at start-up is reported
     * in answers, never a failed start).
     *
     * @param name the reader's name in logs and pool names
     */
    HistoryReader create(String name, S settings);

    /** The settings of a reader of what {@code sink} writes, when this kind reads that kind of sink. */
    default Optional<S> readerOf(ConfiguredSinks.Entry sink) {
        return Optional.empty();
    }

    /** {@link #create} with settings bound elsewhere to this kind's settings class. */
    default HistoryReader createBound(String name, Object settings) {
        return create(name, kind().settingsClass().cast(settings));
    }
}
