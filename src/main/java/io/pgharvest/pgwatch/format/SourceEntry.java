package io.pgharvest.pgwatch.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import java.util.Map;

/**
 * One item of pgwatch's {@code sources.yaml} (snake_case on disk). Kept apart from {@link Source}
 * so the file format can follow pgwatch while the domain follows the API. Unknown keys (e.g.
 * pgwatch's {@code host_config}) are ignored on read and not written back.
 *
 * <p>Why it differs from {@link Source}: pgwatch's names ({@code is_enabled},
 * {@code preset_metrics}, {@code custom_metrics}, {@code custom_tags}, {@code only_if_master}),
 * so pgwatch reads the file and pgharvest reads pgwatch's; {@code kind} is text so an import can
 * skip a kind pgharvest does not know with a notice instead of failing on the whole file; and
 * {@code isEnabled} is a {@code Boolean}, since a missing key means enabled; {@code keep_query_literals}
 * and {@code keep_command_settings} (pgharvest's own keys, which pgwatch ignores) are written only when true, so a file of sources
 * that redact stays pgwatch's. Otherwise it has
 * {@link Source}'s fields, one for one; the connection string is stored as written (with its
 * password: the file is owner-only).
 */
@JsonPropertyOrder({"name", "conn_str", "kind", "group", "is_enabled", "preset_metrics", "custom_metrics",
        "preset_metrics_standby", "custom_metrics_standby", "custom_tags", "include_pattern", "exclude_pattern",
        "only_if_master", "keep_query_literals", "keep_command_settings"})
public record SourceEntry(
        String name,
        String connStr,
        String kind,
        String group,
        Boolean isEnabled,
        String presetMetrics,
        Map<String, Integer> customMetrics,
        String presetMetricsStandby,
        Map<String, Integer> customMetricsStandby,
        Map<String, String> customTags,
        String includePattern,
        String excludePattern,
        Boolean onlyIfMaster,
        Boolean keepQueryLiterals,
        Boolean keepCommandSettings) {

    /** Rejected here, not later, so that the parser reports the line of the offending item. */
    public SourceEntry {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a source needs a 'name'");
        }
        if (connStr == null || connStr.isBlank()) {
            throw new IllegalArgumentException("source '" + name + "' needs a 'conn_str'");
        }
    }

    public static SourceEntry of(Source source) {
        return new SourceEntry(source.name(), source.connStr(), source.kind().label(), source.group(), source.enabled(),
                source.preset(), source.metrics(), source.standbyPreset(), source.standbyMetrics(), source.tags(),
                source.includePattern(), source.excludePattern(), source.onlyIfPrimary(),
                source.keepQueryLiterals() ? Boolean.TRUE : null, source.keepCommandSettings() ? Boolean.TRUE : null);
    }

    /**
     * A missing {@code is_enabled} means enabled (pgwatch would read it as false; see docs/configuration.md).
     *
     * @throws IllegalArgumentException when {@code kind} is not one pgharvest knows (the import
     *         skips such sources with a notice rather than failing on them)
     */
    public Source toSource() {
        return new Source(name, connStr, SourceKind.fromLabel(kind), group, isEnabled == null || isEnabled, blankToNull(presetMetrics),
                customMetrics, blankToNull(presetMetricsStandby), customMetricsStandby, customTags,
                onlyIfMaster != null && onlyIfMaster, blankToNull(includePattern), blankToNull(excludePattern),
                keepQueryLiterals != null && keepQueryLiterals, keepCommandSettings != null && keepCommandSettings);
    }

    public SourceEntry withKind(String newKind) {
        return new SourceEntry(name, connStr, newKind, group, isEnabled, presetMetrics, customMetrics,
                presetMetricsStandby, customMetricsStandby, customTags, includePattern, excludePattern, onlyIfMaster,
                keepQueryLiterals, keepCommandSettings);
    }

    static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
