package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.DcsAddress;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A monitored endpoint as configured by an operator.
 *
 * <p>{@code connStr} holds the full connection string including any password: it is a secret
 * and must only leave the process masked (see {@link ConnectionString#masked()}).
 * The metric selection is {@code preset} (may be null) plus {@code metrics}, whose entries add to
 * or override the preset's intervals in seconds; an interval of 0 removes a preset metric.
 * The standby selection works the same way and applies while the server is in recovery;
 * when both standby fields are empty the primary selection is used on standbys too.
 */
public record Source(
        String name,
        String connStr,
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
        String excludePattern) {

    public static final String DEFAULT_GROUP = "default";

    public Source {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(connStr, "connStr");
        kind = kind == null ? SourceKind.POSTGRES : kind;
        group = group == null || group.isBlank() ? DEFAULT_GROUP : group;
        metrics = sortedCopy(metrics);
        standbyMetrics = sortedCopy(standbyMetrics);
        tags = sortedCopy(tags);
    }

    /** True when the source defines a selection of its own for standby servers. */
    public boolean hasStandbySelection() {
        return standbyPreset != null || !standbyMetrics.isEmpty();
    }

    public Source withConnStr(String newConnStr) {
        return new Source(name, newConnStr, kind, group, enabled, preset, metrics, standbyPreset,
                standbyMetrics, tags, onlyIfPrimary, includePattern, excludePattern);
    }

    /** Never prints the password: records print every component, and connStr holds secrets. */
    @Override
    public String toString() {
        String shown;
        try {
            shown = DcsAddress.looksLikeDcs(connStr) ? DcsAddress.parse(connStr).masked()
                    : ConnectionString.parse(connStr).masked();
        } catch (IllegalArgumentException e) {
            shown = "<connection string that does not parse>";
        }
        return "Source[name=" + name + ", connStr=" + shown + ", kind=" + kind.label() + ", group=" + group
                + ", enabled=" + enabled + ", preset=" + preset + ", metrics=" + metrics + "]";
    }

    /** Immutable copy that keeps a stable order, so files and API answers do not reshuffle. */
    private static <V> Map<String, V> sortedCopy(Map<String, V> map) {
        return map == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
