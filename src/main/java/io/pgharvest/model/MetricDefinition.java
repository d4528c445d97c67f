package io.pgharvest.model;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A named SQL metric. {@code sqls} maps the minimum PostgreSQL major version to the query that
 * works from that version on; {@link #sqlFor(int)} picks the highest key not above the server's.
 *
 * @param gauges columns exported as gauges ({@code "*"} = all); the others are counters
 * @param instanceLevel fetched once per PostgreSQL instance and shared by its sources
 * @param storageName where measurements are stored; null means {@link #name()}
 * @param initSql run once per session before the metric (e.g. create a helper function)
 * @param statementTimeoutSeconds server-side limit for this metric; null means the global default
 * @param instanceSqls the instance-wide variant of a per-database metric, keyed like {@code sqls}:
 *     the same columns for every database of the instance plus a {@value #FAN_OUT_KEY} column
 *     naming each row's database. When several sources on one instance collect the metric, the
 *     engine runs this once per instance and due time and hands each source its database's rows
 *     (without the key column), exactly as if {@code sqls} had run there. Used only where its key
 *     at or below the server's version equals that of {@code sqls} (so it replaces the query it
 *     was written for); empty for metrics that cannot fan out
 * @param nativeName the pgharvest implementation that collects this metric instead of SQL (one of
 *     {@link NativeNames#KNOWN}), or null for a SQL metric; a native metric has no SQL
 */
public record MetricDefinition(
        String name,
        String description,
        Map<Integer, String> sqls,
        List<String> gauges,
        boolean instanceLevel,
        NodeStatus nodeStatus,
        String storageName,
        String initSql,
        Integer statementTimeoutSeconds,
        Map<Integer, String> instanceSqls,
        String nativeName) {

    /** The column of an instance-wide variant that names the database each row belongs to. */
    public static final String FAN_OUT_KEY = "fan_out_dbname";

    public MetricDefinition {
        Objects.requireNonNull(name, "name");
        sqls = sqls == null ? Collections.emptyNavigableMap()
                : Collections.unmodifiableNavigableMap(new TreeMap<>(sqls));
        gauges = gauges == null ? List.of() : List.copyOf(gauges);
        nodeStatus = nodeStatus == null ? NodeStatus.ANY : nodeStatus;
        description = description == null ? "" : description;
        instanceSqls = instanceSqls == null ? Collections.emptyNavigableMap()
                : Collections.unmodifiableNavigableMap(new TreeMap<>(instanceSqls));
    }

    /** A SQL metric. */
    public MetricDefinition(String name, String description, Map<Integer, String> sqls, List<String> gauges,
            boolean instanceLevel, NodeStatus nodeStatus, String storageName, String initSql,
            Integer statementTimeoutSeconds, Map<Integer, String> instanceSqls) {
        this(name, description, sqls, gauges, instanceLevel, nodeStatus, storageName, initSql,
                statementTimeoutSeconds, instanceSqls, null);
    }

    /** A metric collected by pgharvest's implementation {@code nativeName} rather than by SQL. */
    public static MetricDefinition nativeMetric(String name, String description, List<String> gauges,
            NodeStatus nodeStatus, String storageName, String nativeName) {
        return new MetricDefinition(name, description, null, gauges, false, nodeStatus, storageName, null, null,
                null, nativeName);
    }

    /** Whether pgharvest's own code collects this metric ({@link #nativeName()}), not SQL. */
    public boolean isNative() {
        return nativeName != null;
    }

    /** A metric without an instance-wide variant. */
    public MetricDefinition(String name, String description, Map<Integer, String> sqls, List<String> gauges,
            boolean instanceLevel, NodeStatus nodeStatus, String storageName, String initSql,
            Integer statementTimeoutSeconds) {
        this(name, description, sqls, gauges, instanceLevel, nodeStatus, storageName, initSql,
                statementTimeoutSeconds, null);
    }

    /**
     * The instance-wide variant for a server of {@code serverMajorVersion}: present only when it
     * was written for the same version key as the per-database SQL {@link #sqlFor} picks.
     */
    public Optional<String> instanceSqlFor(int serverMajorVersion) {
        var perDatabase = ((NavigableMap<Integer, String>) sqls).floorEntry(serverMajorVersion);
        var instanceWide = ((NavigableMap<Integer, String>) instanceSqls).floorEntry(serverMajorVersion);
        if (perDatabase == null || instanceWide == null || !perDatabase.getKey().equals(instanceWide.getKey())) {
            return Optional.empty();
        }
        return Optional.of(instanceWide.getValue());
    }

    /**
     * The SQL for the highest version key at or below {@code serverMajorVersion}. The pooler keys
     * below {@link MetricRules#MIN_MAJOR_VERSION} (the poolers' keys, {@link KindRules#sqlKey()}) are
     * never picked for a PostgreSQL server, and are matched exactly when asked for.
     */
    public Optional<String> sqlFor(int serverMajorVersion) {
        var versions = (NavigableMap<Integer, String>) sqls;
        if (serverMajorVersion < MetricRules.MIN_MAJOR_VERSION) {
            return Optional.ofNullable(versions.get(serverMajorVersion));
        }
        // The highest key at or below the server's; a pooler key there means no PostgreSQL key is.
        // (No tailMap view: this runs for every metric of every tick.)
        var entry = versions.floorEntry(serverMajorVersion);
        return entry == null || entry.getKey() < MetricRules.MIN_MAJOR_VERSION ? Optional.empty()
                : Optional.of(entry.getValue());
    }

    /** The table or series name measurements of this metric are written under. */
    public String effectiveStorageName() {
        return storageName == null || storageName.isBlank() ? name : storageName;
    }

    /** Whether {@code column} is exported as a gauge rather than a counter. */
    public boolean isGauge(String column) {
        return gauges.contains("*") || gauges.contains(column);
    }
}
