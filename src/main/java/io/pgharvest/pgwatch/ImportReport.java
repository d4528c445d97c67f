package io.pgharvest.pgwatch;

import io.pgharvest.store.AppliedChanges;
import io.pgharvest.store.StoreException;
import java.util.List;
import java.util.Locale;

/**
 * The answer to an import: what happened (or, in a dry run, would happen) to each item, and the
 * notices about what was not taken over as written.
 *
 * @param index store index after the import; unchanged by a dry run
 */
public record ImportReport(boolean dryRun, long index, long created, long replaced, long overridden, long unchanged,
        List<Change> changes, List<ImportNotice> notices) {

    public ImportReport {
        changes = List.copyOf(changes);
        notices = List.copyOf(notices);
    }

    /** @param type source, metric or preset */
    public record Change(String type, String name, String action) {
    }

    static ImportReport of(AppliedChanges applied, List<ImportNotice> notices) {
        List<Change> changes = applied.items().stream()
                .map(item -> new Change(StoreException.noun(item.table()), item.name(),
                        item.action().name().toLowerCase(Locale.ROOT)))
                .toList();
        return new ImportReport(applied.dryRun(), applied.index(), applied.count(AppliedChanges.Action.CREATED),
                applied.count(AppliedChanges.Action.REPLACED), applied.count(AppliedChanges.Action.OVERRIDDEN),
                applied.count(AppliedChanges.Action.UNCHANGED), changes, notices);
    }
}
