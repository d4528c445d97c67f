package io.pgharvest.source;

import io.pgharvest.support.ChangeNotifier;
import java.util.List;
import java.util.Optional;

/**
 * Supplies the status of sources to the admin API: what is configured plus what the engine
 * reports ({@link EngineSourceStatusProvider}).
 */
public interface SourceStatusProvider {

    /** The status of {@code sourceName}, or empty when no such source exists. Never throws. */
    Optional<SourceStatus> status(String sourceName);

    /** The status of every configured source, by name, read from one configuration snapshot. Never throws. */
    List<SourceStatus> statuses();

    /**
     * The notifier that blocking queries on status park on: it must advance whenever any
     * source's status may have changed. One notifier for all sources, never one per source.
     */
    ChangeNotifier statusChanges();
}
