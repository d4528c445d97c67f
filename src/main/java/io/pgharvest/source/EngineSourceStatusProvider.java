package io.pgharvest.source;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.ChangeNotifier;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The status endpoint's view: the configured state plus what the source's reaper reports.
 * Blocking status queries park on the reaper service's one status notifier, which advances on
 * every configuration change and on every significant runtime change.
 */
@Component
final class EngineSourceStatusProvider implements SourceStatusProvider {

    private final ConfigStore store;
    private final ReaperService reapers;

    EngineSourceStatusProvider(ConfigStore store, ReaperService reapers) {
        this.store = store;
        this.reapers = reapers;
    }

    @Override
    public Optional<SourceStatus> status(String sourceName) {
        ConfigSnapshot snapshot = store.snapshot();
        return Optional.ofNullable(snapshot.sources().get(sourceName)).map(source -> {
            SourceStatus configured = SourceStatus.configured(source, snapshot);
            SourceStatus withRuntime = reapers.status(sourceName).map(configured::withRuntime).orElse(configured);
            return reapers.discovery(sourceName).map(withRuntime::withDiscovery).orElse(withRuntime);
        });
    }

    @Override
    public ChangeNotifier statusChanges() {
        return reapers.statusChanges();
    }
}
