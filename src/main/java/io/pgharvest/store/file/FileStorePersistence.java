package io.pgharvest.store.file;

import static io.pgharvest.model.StoreTable.METRICS;
import static io.pgharvest.model.StoreTable.PRESETS;
import static io.pgharvest.model.StoreTable.SOURCES;

import io.pgharvest.model.StoreTable;
import io.pgharvest.pgwatch.format.MetricsFile;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import io.pgharvest.store.state.StorePersistence;
import io.pgharvest.store.state.StoreState;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Set;

/**
 * The embedded store's files: {@code sources.yaml}, {@code metrics.yaml}, {@code store-index.yaml}
 * in the data directory, each written atomically. One instance owns them, so nobody else writes
 * between {@link #begin} and {@link #persist}.
 */
final class FileStorePersistence implements StorePersistence {

    private final StoreFiles files;
    private final PgwatchYaml yaml = new PgwatchYaml();

    FileStorePersistence(StoreFiles files) {
        this.files = files;
    }

    @Override
    public StoreState load() {
        return new StoreLoader(yaml).load(files);
    }

    @Override
    public StoreState begin(StoreState published) {
        return published;
    }

    /**
     * Writes the index file, then the data files of {@code tables}. When the second data file
     * cannot be written, the first is restored to {@code current}'s content, so a failed write
     * leaves the files as they were (the index file may be one step ahead, which start-up
     * tolerates); only if that restore fails too do the files disagree with the published state,
     * and the exception says so.
     */
    @Override
    public void persist(StoreState current, StoreState next, Set<StoreTable> tables) {
        var written = new ArrayList<Path>();
        Path target = files.index();
        try {
            AtomicFiles.write(target, yaml.write(next.indexFile()));
            if (tables.contains(METRICS) || tables.contains(PRESETS)) {
                target = files.metrics();
                AtomicFiles.write(target, yaml.write(MetricsFile.of(next.userMetrics(), next.userPresets())));
                written.add(target);
            }
            if (tables.contains(SOURCES)) {
                target = files.sources();
                AtomicFiles.write(target, yaml.write(next.sources().values()));
            }
        } catch (IOException e) {
            var failure = new UncheckedIOException("cannot write " + target + "; nothing was changed: "
                    + e.getMessage(), e);
            for (Path file : written) {
                try {
                    AtomicFiles.write(file, yaml.write(MetricsFile.of(current.userMetrics(), current.userPresets())));
                } catch (IOException restore) {
                    failure = new UncheckedIOException("cannot write " + target + " and cannot restore " + file
                            + ", which now holds changes that were not applied; correct the disk problem and"
                            + " restart pgharvest: " + e.getMessage(), e);
                    failure.addSuppressed(restore);
                }
            }
            throw failure;
        }
    }

    @Override
    public void abandon() {
        // Nothing to release: the store's write lock is the only lock.
    }
}
