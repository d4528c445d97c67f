package io.pgharvest.history;

import io.pgharvest.config.plugin.EntryOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * The options every entry of {@code pgharvest.history} has besides its kind's own.
 *
 * @param type the kind of reader, one of the registry's types
 * @param name name in logs and of its connection pool; defaults to the type (type-index when a
 *     type repeats)
 * @param sources the sources whose history this reader answers; empty: every source. A source's
 *     history is read from the first entry that names it or names none
 */
record HistoryEntryOptions(String type, String name, List<String> sources) implements EntryOptions {

    HistoryEntryOptions {
        sources = sources == null ? List.of() : List.copyOf(sources);
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        for (int i = 0; i < sources.size(); i++) {
            if (sources.get(i) == null || sources.get(i).isBlank()) {
                problems.add(prefix + ".sources[" + i + "] must name a source");
            }
        }
        return problems;
    }
}
