package io.pgharvest.changes;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One kind of database object whose definitions a built-in {@code *_hashes} metric reads as one
 * row per object (identity in its tags, a digest or value in {@link #hashColumn}), and the table
 * its changes are written to, with pgwatch's table names and event words, so that pgwatch's
 * change-events dashboard reads them.
 *
 * @param hashesMetric storage name of the metric that reads the objects
 * @param changesTable storage name the change rows are written under
 * @param hashColumn the column compared between two reads
 * @param created event word of an object seen for the first time, after the first read
 * @param altered event word of an object whose hash changed
 * @param dropped event word of an object that is gone; null when disappearing is not reported
 */
record HashedObjects(String hashesMetric, String changesTable, String hashColumn, String created, String altered,
        String dropped) {

    /** pgwatch's change kinds (pgwatch's own dashboard reads these tables and words). */
    static final List<HashedObjects> PGWATCH = List.of(
            new HashedObjects("table_hashes", "table_changes", "md5", "create", "alter", "drop"),
            new HashedObjects("index_hashes", "index_changes", "md5", "create", "alter", "drop"),
            new HashedObjects("sproc_hashes", "sproc_changes", "md5", "create", "alter", "drop"),
            new HashedObjects("configuration_hashes", "configuration_changes", "value", "create", "alter", null));

    private static final Map<String, HashedObjects> BY_METRIC =
            PGWATCH.stream().collect(Collectors.toUnmodifiableMap(HashedObjects::hashesMetric, Function.identity()));

    static Optional<HashedObjects> byHashesMetric(String storageName) {
        return Optional.ofNullable(BY_METRIC.get(storageName));
    }
}
