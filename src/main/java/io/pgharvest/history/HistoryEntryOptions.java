package io.pgharvest.history;

import io.pgharvest.config.plugin.EntryOptions;
import java.util.List;

/**
 * The options every entry of {@code pgharvest.history} has besides its kind's own.
 *
 * @param type the kind of reader, one of the registry's types
 * @param name name in logs and of its connection pool; defaults to the type (type-index when a
 *     type repeats)
 */
record HistoryEntryOptions(String type, String name) implements EntryOptions {

    @Override
    public List<String> problems(String prefix) {
        return List.of();
    }
}
