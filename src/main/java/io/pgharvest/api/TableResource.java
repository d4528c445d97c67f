package io.pgharvest.api;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.NoSuchItemException;
import io.pgharvest.store.Stored;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The shared skeleton of the admin API's resources that are one store table (sources, metrics,
 * presets): the list as a blocking query on that table's notifier, get by name, and the answers to
 * a write (201 with a Location, or 200) and a delete (204). Every answer carries the table's index
 * in {@value BlockingQuery#INDEX_HEADER}. Controllers keep their mappings, OpenAPI text and the
 * mapping of a request onto the kernel's values, which differ per resource, and delegate here.
 *
 * <p>Reading order matters: the table's index is read before the snapshot, so the header never
 * claims a change the body does not show yet (a client waiting on it would miss that change).
 *
 * @param <T> the kernel's value (a {@code Source}, {@code MetricDefinition}, {@code Preset})
 * @param <R> its response shape
 */
public final class TableResource<T, R> {

    /** Builds the response shape of one item at its modify index. */
    @FunctionalInterface
    public interface ResponseShape<T, R> {
        R of(T item, long modifyIndex);
    }

    private final ConfigStore store;
    private final StoreTable table;
    private final String path;
    private final Function<ConfigSnapshot, Map<String, T>> items;
    private final Function<T, String> name;
    private final ResponseShape<T, R> response;

    /**
     * @param path the resource's path, {@code /api/v1/metrics}: a created item's Location is path/name
     * @param items the table's items in a snapshot, in the order the list shows them
     * @param name an item's name
     */
    public TableResource(ConfigStore store, StoreTable table, String path, Function<ConfigSnapshot, Map<String, T>> items,
            Function<T, String> name, ResponseShape<T, R> response) {
        this.store = store;
        this.table = table;
        this.path = path;
        this.items = items;
        this.name = name;
        this.response = response;
    }

    /** Every item; a blocking query when {@code index} is given (both parameters as the request sent them). */
    public ResponseEntity<List<R>> list(String index, String wait) {
        long seen = BlockingQuery.parse(index, wait).await(store.changes(table));
        ConfigSnapshot snapshot = store.snapshot();
        List<R> body = items.apply(snapshot).values().stream()
                .map(item -> response.of(item, snapshot.modifyIndex(table, name.apply(item))))
                .toList();
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(body);
    }

    /** @throws NoSuchItemException when there is no such item (404) */
    public ResponseEntity<R> get(String itemName) {
        long index = store.changes(table).index();
        ConfigSnapshot snapshot = store.snapshot();
        T item = items.apply(snapshot).get(itemName);
        if (item == null) {
            throw new NoSuchItemException(table, itemName);
        }
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(index))
                .body(response.of(item, snapshot.modifyIndex(table, itemName)));
    }

    /** The answer to a create or replace the store accepted. */
    public ResponseEntity<R> written(Stored<T> stored) {
        R body = response.of(stored.item(), stored.modifyIndex());
        var builder = stored.created()
                ? ResponseEntity.status(HttpStatus.CREATED).location(URI.create(path + "/" + name.apply(stored.item())))
                : ResponseEntity.ok();
        return builder.header(INDEX_HEADER, Long.toString(store.changes(table).index())).body(body);
    }

    /** The answer to a delete the store made at {@code index}. */
    public ResponseEntity<Void> deleted(long index) {
        return ResponseEntity.noContent().header(INDEX_HEADER, Long.toString(index)).build();
    }
}
