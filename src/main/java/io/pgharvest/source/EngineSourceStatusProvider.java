package io.pgharvest.source;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.ChangeNotifier;
import java.util.Comparator;
import java.util.List;
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
        return Optional.ofNullable(snapshot.sources().get(sourceName)).map(source -> statusOf(source, snapshot));
    }

    @Override
    public List<SourceStatus> statuses() {
        ConfigSnapshot snapshot = store.snapshot();
        return snapshot.sources().values().stream()
                .sorted(Comparator.comparing(Source::name))
                .map(source -> statusOf(source, snapshot))
                .toList();
    }

    private SourceStatus statusOf(Source source, ConfigSnapshot snapshot) {
        String sourceName = source.name();
        SourceStatus configured = SourceStatus.configured(source, snapshot);
        SourceStatus status = reapers.status(sourceName).map(configured::withRuntime).orElse(configured);
        status = reapers.discovery(sourceName).map(status::withDiscovery).orElse(status);
        // With a fleet: which instance collects it, also when that is another one.
        return reapers.owner(sourceName).map(status::withOwner).orElse(status);
    }

    @Override
    public ChangeNotifier statusChanges() {
        return reapers.statusChanges();
    }
}
