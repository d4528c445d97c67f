package io.pgharvest.source;

import io.pgharvest.store.ChangeNotifier;
import java.util.Optional;

/**
 * Supplies the runtime status of sources to the admin API. The default,
 * {@link ConfiguredSourceStatusProvider}, reports the configured state; the collection engine
 * replaces it by declaring its own implementation as a {@code @Primary} bean.
 */
public interface SourceStatusProvider {

    /** The status of {@code sourceName}, or empty when no such source exists. Never throws. */
    Optional<SourceStatus> status(String sourceName);

    /**
     * The notifier that blocking queries on status park on: it must advance whenever any
     * source's status may have changed. One notifier for all sources, never one per source.
     */
    ChangeNotifier statusChanges();
}
