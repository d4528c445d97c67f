package io.pgharvest.metric;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.CheckAndSet;
import io.pgharvest.api.TableResource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.Stored;
import io.pgharvest.store.WriteCondition;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongBiFunction;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * The HTTP face of a catalog table (metrics, presets): both are built-in items plus the operator's
 * own, which may override a built-in one of the same name, and both answer the same five calls.
 * A subclass only names its path and tag (which carries the table's own wording in the API docs)
 * and hands its table's functions to the constructor; mappings and answers are here once.
 *
 * @param <T> the kernel's value ({@code MetricDefinition}, {@code Preset})
 * @param <Q> the request body
 * @param <R> the response body
 */
abstract class CatalogController<T, Q, R> {

    /** The response shape of one item, with where it comes from, at its modify index. */
    @FunctionalInterface
    interface ResponseShape<T, R> {
        R of(T item, Origin origin, long modifyIndex);
    }

    /** How a request body becomes the kernel's value; the path's name for a PUT, null for a POST. */
    @FunctionalInterface
    interface RequestReader<Q, T> {
        T toItem(Q request, String pathName);
    }

    /** The store's calls for one catalog table. */
    record StoreCalls<T>(Function<T, Stored<T>> create, BiFunction<T, WriteCondition, Stored<T>> put,
            ToLongBiFunction<String, WriteCondition> delete) {
    }

    private final TableResource<T, R> table;
    private final RequestReader<Q, T> requests;
    private final StoreCalls<T> calls;

    CatalogController(ConfigStore store, StoreTable storeTable, String path, Function<ConfigSnapshot, Map<String, T>> items,
            Function<T, String> name, ResponseShape<T, R> response, RequestReader<Q, T> requests, StoreCalls<T> calls) {
        this.table = new TableResource<>(store, storeTable, path, items, name, (item, modifyIndex) ->
                response.of(item, Origin.of(store.origin(storeTable, name.apply(item))), modifyIndex));
        this.requests = requests;
        this.calls = calls;
    }

    @GetMapping
    @Operation(summary = "List", description = "Built-in and operator items, by name. A blocking query when index is given.")
    @ApiResponse(responseCode = "200", description = "Every item, by name",
            headers = @Header(name = INDEX_HEADER, description = "index of the table"))
    @ApiResponse(responseCode = "400", description = "index or wait does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<R>> list(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return table.list(index, wait);
    }

    @PostMapping
    @Operation(summary = "Create")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid item; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "An item of that name exists (built-in ones too: use PUT to override)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<R> createItem(@RequestBody Q request) {
        return table.written(calls.create().apply(requests.toItem(request, null)));
    }

    @GetMapping("/{name}")
    @Operation(summary = "Get one")
    @ApiResponse(responseCode = "200", description = "The item")
    @ApiResponse(responseCode = "404", description = "No such item",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<R> get(@PathVariable String name) {
        return table.get(name);
    }

    @PutMapping("/{name}")
    @Operation(summary = "Create, replace or override",
            description = "On a built-in name this creates the operator's override.")
    @ApiResponse(responseCode = "200", description = "Replaced or overridden")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid item (errors names each field), or cas does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "stale-index: the item changed since the modifyIndex given as cas",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<R> putItem(@PathVariable String name,
            @Parameter(description = CheckAndSet.PARAM_DESCRIPTION) @RequestParam(required = false) String cas,
            @RequestBody Q request) {
        WriteCondition condition = CheckAndSet.parse(cas);
        return table.written(calls.put().apply(requests.toItem(request, name), condition));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete", description = "Deleting an override restores the built-in item.")
    @ApiResponse(responseCode = "204", description = "Deleted, or reverted to the built-in",
            headers = @Header(name = INDEX_HEADER, description = "store index of the deletion"))
    @ApiResponse(responseCode = "404", description = "No such item",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "Built in (not deletable), still used (usedBy lists by what),"
            + " or stale-index (changed since the modifyIndex given as cas)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<Void> deleteItem(@PathVariable String name,
            @Parameter(description = CheckAndSet.PARAM_DESCRIPTION) @RequestParam(required = false) String cas) {
        return table.deleted(calls.delete().applyAsLong(name, CheckAndSet.parse(cas)));
    }
}
