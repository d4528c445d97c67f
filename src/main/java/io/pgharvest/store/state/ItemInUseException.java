package io.pgharvest.store.state;

import io.pgharvest.model.StoreTable;
import io.pgharvest.store.StoreException;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** A delete was refused because sources or presets still refer to the item. */
public class ItemInUseException extends StoreException {

    private final Map<StoreTable, List<String>> users;

    public ItemInUseException(StoreTable table, String name, Map<StoreTable, List<String>> users) {
        super(table, name, noun(table) + " '" + name + "' is still used by " + describe(users));
        var copy = new EnumMap<StoreTable, List<String>>(StoreTable.class);
        users.forEach((t, names) -> copy.put(t, List.copyOf(names)));
        this.users = Collections.unmodifiableMap(copy);
    }

    /** Per table, the names of the items that refer to the one being deleted (sorted). */
    public Map<StoreTable, List<String>> users() {
        return users;
    }

    private static String describe(Map<StoreTable, List<String>> users) {
        var parts = new StringBuilder();
        users.forEach((table, names) -> {
            if (!parts.isEmpty()) {
                parts.append(" and ");
            }
            parts.append(noun(table)).append(names.size() == 1 ? " " : "s ").append(String.join(", ", names));
        });
        return parts.toString();
    }
}
