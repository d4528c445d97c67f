package io.pgharvest.source;

import io.pgharvest.store.ChangeNotifier;
import io.pgharvest.store.ConfigSnapshot;
import io.pgharvest.store.ConfigStore;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * Reports each source's configured state: enabled, and the metrics its selection resolves to.
 * Parks blocking queries on the store-wide notifier, because a change to a preset or metric
 * changes a source's resolved selection as much as a change to the source itself.
 */
@Component
class ConfiguredSourceStatusProvider implements SourceStatusProvider {

    private final ConfigStore store;

    ConfiguredSourceStatusProvider(ConfigStore store) {
        this.store = store;
    }

    @Override
    public Optional<SourceStatus> status(String sourceName) {
        ConfigSnapshot snapshot = store.snapshot();
        return Optional.ofNullable(snapshot.sources().get(sourceName))
                .map(source -> SourceStatus.configured(source, snapshot));
    }

    @Override
    public ChangeNotifier statusChanges() {
        return store.changes();
    }
}
