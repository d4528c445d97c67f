package io.pgharvest.changes;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One kind of database object whose definitions a built-in metric reads as one row per object
 * (identity in its tags plus {@link #identityColumns}, a digest or value in {@link #hashColumn}),
 * and the table its changes are written to, with pgwatch's table names and event words, so that
 * pgwatch's change-events dashboard reads them.
 *
 * @param hashesMetric storage name of the metric that reads the objects
 * @param changesTable storage name the change rows are written under
 * @param hashColumn the column compared between two reads; null when an object is only ever
 *     there or not (a granted privilege), so it is never reported as altered
 * @param identityColumns value columns that belong to the object's identity besides its tags
 *     (kept in the rows so that a dropped object is reported with them, as pgwatch's dashboard
 *     filters on them)
 * @param created event word of an object seen for the first time, after the first read
 * @param altered event word of an object whose hash changed; null with no hash column
 * @param dropped event word of an object that is gone; null when disappearing is not reported
 */
record HashedObjects(String hashesMetric, String changesTable, String hashColumn, List<String> identityColumns,
        String created, String altered, String dropped) {

    HashedObjects {
        identityColumns = List.copyOf(identityColumns);
    }

    /**
     * pgwatch's change kinds (pgwatch's own dashboard reads these tables and words). The privilege
     * metric has pgwatch's name, not a *_hashes one, because pgwatch's metric of that name returns
     * the same rows: imported, it feeds the same comparison.
     */
    static final List<HashedObjects> PGWATCH = List.of(
            new HashedObjects("table_hashes", "table_changes", "md5", List.of(), "create", "alter", "drop"),
            new HashedObjects("index_hashes", "index_changes", "md5", List.of(), "create", "alter", "drop"),
            new HashedObjects("sproc_hashes", "sproc_changes", "md5", List.of(), "create", "alter", "drop"),
            new HashedObjects("configuration_hashes", "configuration_changes", "value", List.of(),
                    "create", "alter", null),
            new HashedObjects("privilege_changes", "privilege_changes", null,
                    List.of("object_type", "privilege_type"), "GRANT", null, "REVOKE"));

    private static final Map<String, HashedObjects> BY_METRIC =
            PGWATCH.stream().collect(Collectors.toUnmodifiableMap(HashedObjects::hashesMetric, Function.identity()));

    static Optional<HashedObjects> byHashesMetric(String storageName) {
        return Optional.ofNullable(BY_METRIC.get(storageName));
    }
}
