package io.pgharvest.model;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A monitored endpoint as configured by an operator.
 *
 * <p>{@code connection} holds the connection string as written ({@link #connStr()}), including any
 * password, and its value parsed once when the source is built ({@link SourceConnection}): it is
 * a secret and must only leave the process masked ({@link SourceConnection#masked()}).
 * The metric selection is {@code preset} (may be null) plus {@code metrics}, whose entries add to
 * or override the preset's intervals in seconds; an interval of 0 removes a preset metric.
 * The standby selection works the same way and applies while the server is in recovery;
 * when both standby fields are empty the primary selection is used on standbys too.
 * {@code keepQueryLiterals} lets the literals of statement texts ({@code query} columns of
 * long_running_queries and the like) reach the sinks as the server reports them; by default they
 * are redacted ({@link QueryTextRedaction}). {@code keepCommandSettings} lets the server settings
 * that hold commands or secrets ({@code archive_command}, {@code restore_command},
 * {@code ssl_passphrase_command}, ...) reach the sinks as the server reports them; by default they
 * are masked, and the passwords of connection strings ({@code primary_conninfo}) are removed
 * always ({@link SettingRedaction}).
 *
 * <p>This record is the one description of a source's shape. Three other shapes map onto it, each
 * differing only where its boundary needs it (each says why in its own Javadoc):
 * {@code source.SourceRequest} (what a client sends), {@code source.SourceResponse} (what the API
 * returns) and {@code pgwatch.format.SourceEntry} (an item of pgwatch's sources.yaml). A test
 * ({@code SourceShapesTest}) fails when a component is added here and not to all three.
 */
public record Source(
        String name,
        SourceConnection connection,
        SourceKind kind,
        String group,
        boolean enabled,
        String preset,
        Map<String, Integer> metrics,
        String standbyPreset,
        Map<String, Integer> standbyMetrics,
        Map<String, String> tags,
        boolean onlyIfPrimary,
        String includePattern,
        String excludePattern,
        boolean keepQueryLiterals,
        boolean keepCommandSettings) {

    public static final String DEFAULT_GROUP = "default";

    public Source {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(connection, "connStr");
        kind = kind == null ? SourceKind.defaultKind() : kind;
        if (!connection.readAs(kind)) {
            connection = SourceConnection.parse(kind, connection.text());
        }
        group = group == null || group.isBlank() ? DEFAULT_GROUP : group;
        metrics = sortedCopy(metrics);
        standbyMetrics = sortedCopy(standbyMetrics);
        tags = sortedCopy(tags);
    }

    /** A source whose connection string is parsed here, at the boundary where it enters, by {@code kind}. */
    public Source(String name, String connStr, SourceKind kind, String group, boolean enabled, String preset,
            Map<String, Integer> metrics, String standbyPreset, Map<String, Integer> standbyMetrics,
            Map<String, String> tags, boolean onlyIfPrimary, String includePattern, String excludePattern,
            boolean keepQueryLiterals, boolean keepCommandSettings) {
        this(name, SourceConnection.parse(kind, connStr), kind, group, enabled, preset, metrics, standbyPreset,
                standbyMetrics, tags, onlyIfPrimary, includePattern, excludePattern, keepQueryLiterals,
                keepCommandSettings);
    }

    /** A source whose command settings are masked (the default), connection string parsed here. */
    public Source(String name, String connStr, SourceKind kind, String group, boolean enabled, String preset,
            Map<String, Integer> metrics, String standbyPreset, Map<String, Integer> standbyMetrics,
            Map<String, String> tags, boolean onlyIfPrimary, String includePattern, String excludePattern,
            boolean keepQueryLiterals) {
        this(name, connStr, kind, group, enabled, preset, metrics, standbyPreset, standbyMetrics, tags,
                onlyIfPrimary, includePattern, excludePattern, keepQueryLiterals, false);
    }

    /** A source whose command settings are masked (the default). */
    public Source(String name, SourceConnection connection, SourceKind kind, String group, boolean enabled,
            String preset, Map<String, Integer> metrics, String standbyPreset, Map<String, Integer> standbyMetrics,
            Map<String, String> tags, boolean onlyIfPrimary, String includePattern, String excludePattern,
            boolean keepQueryLiterals) {
        this(name, connection, kind, group, enabled, preset, metrics, standbyPreset, standbyMetrics, tags,
                onlyIfPrimary, includePattern, excludePattern, keepQueryLiterals, false);
    }

    /** A source whose statement texts lose their literals (the default), connection string parsed here. */
    public Source(String name, String connStr, SourceKind kind, String group, boolean enabled, String preset,
            Map<String, Integer> metrics, String standbyPreset, Map<String, Integer> standbyMetrics,
            Map<String, String> tags, boolean onlyIfPrimary, String includePattern, String excludePattern) {
        this(name, connStr, kind, group, enabled, preset, metrics, standbyPreset, standbyMetrics, tags,
                onlyIfPrimary, includePattern, excludePattern, false);
    }

    /** A source whose statement texts lose their literals (the default). */
    public Source(String name, SourceConnection connection, SourceKind kind, String group, boolean enabled,
            String preset, Map<String, Integer> metrics, String standbyPreset, Map<String, Integer> standbyMetrics,
            Map<String, String> tags, boolean onlyIfPrimary, String includePattern, String excludePattern) {
        this(name, connection, kind, group, enabled, preset, metrics, standbyPreset, standbyMetrics, tags,
                onlyIfPrimary, includePattern, excludePattern, false);
    }

    /** The connection string as written, password included: for storage only. */
    public String connStr() {
        return connection.text();
    }

    /** True when the source defines a selection of its own for standby servers. */
    public boolean hasStandbySelection() {
        return standbyPreset != null || !standbyMetrics.isEmpty();
    }

    public Source withConnection(SourceConnection newConnection) {
        return new Source(name, newConnection, kind, group, enabled, preset, metrics, standbyPreset,
                standbyMetrics, tags, onlyIfPrimary, includePattern, excludePattern, keepQueryLiterals,
                keepCommandSettings);
    }

    /** Never prints the password: records print every component, and connStr holds secrets. */
    @Override
    public String toString() {
        String shown = connection.problem().isPresent() ? "<connection string that does not parse>"
                : connection.masked();
        return "Source[name=" + name + ", connStr=" + shown + ", kind=" + kind.label() + ", group=" + group
                + ", enabled=" + enabled + ", preset=" + preset + ", metrics=" + metrics + "]";
    }

    /** Immutable copy that keeps a stable order, so files and API answers do not reshuffle. */
    private static <V> Map<String, V> sortedCopy(Map<String, V> map) {
        return map == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
