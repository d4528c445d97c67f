package io.pgharvest.changes;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.MetricCatalog;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sinks' view of the selection with change detection in front of them: a selected
 * {@code *_hashes} metric stands for its {@code *_changes} table (which pgwatch's dashboards query
 * and which must exist before the first change), and its own rows are never stored; a selected
 * {@code db_stats} also brings {@code object_changes}, where restarts and role changes go.
 */
final class ChangeTablesCatalog implements MetricCatalog {

    private final MetricCatalog metrics;

    ChangeTablesCatalog(MetricCatalog metrics) {
        this.metrics = metrics;
    }

    @Override
    public Optional<MetricDefinition> byStorageName(String storageName) {
        return metrics.byStorageName(storageName);
    }

    @Override
    public Set<String> selectedStorageNames() {
        var names = new TreeSet<String>();
        for (String name : metrics.selectedStorageNames()) {
            names.add(HashedObjects.byHashesMetric(name).map(HashedObjects::changesTable).orElse(name));
            if (name.equals(ServerEventDetector.DB_STATS)) {
                names.add(ServerEventDetector.OBJECT_CHANGES);
            }
        }
        return names;
    }

    @Override
    public long awaitSelectionChange(long seen, Duration timeout) throws InterruptedException {
        return metrics.awaitSelectionChange(seen, timeout);
    }
}
