package io.pgharvest.store;

import io.pgharvest.model.StoreTable;
import java.util.List;

/**
 * What {@link ConfigStore#putAll} did, or would do in a dry run, to each item.
 *
 * @param index the store index after the write (unchanged by a dry run or when nothing changed)
 */
public record AppliedChanges(boolean dryRun, long index, List<ItemChange> items) {

    public AppliedChanges {
        items = List.copyOf(items);
    }

    /** What happens to one item. */
    public enum Action {
        /** A new source, metric or preset. */
        CREATED,
        /** The operator's item of that name is replaced. */
        REPLACED,
        /** A built-in metric or preset gets the operator's override. */
        OVERRIDDEN,
        /** Equal to what is there already: not written, its modify index stays. */
        UNCHANGED
    }

    public record ItemChange(StoreTable table, String name, Action action) {
    }

    public long count(Action action) {
        return items.stream().filter(item -> item.action() == action).count();
    }
}
