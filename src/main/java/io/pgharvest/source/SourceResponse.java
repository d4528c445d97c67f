package io.pgharvest.source;

import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Map;

/**
 * A source as the API returns it. Why this is not {@link Source} itself: {@code connStr} is
 * {@link io.pgharvest.model.SourceConnection#masked() masked} (a secret never leaves the
 * process), and {@code modifyIndex} is added, the store index of the source's last change that a
 * client compares or waits on. The field names and order are {@link Source}'s.
 */
@Schema(name = "Source")
record SourceResponse(
        String name,
        @Schema(description = "the password is always shown as ********", example = "postgresql://monitor:********@db1:5432/orders")
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
        String excludePattern,
        boolean keepQueryLiterals,
        boolean keepCommandSettings,
        @Schema(description = "store index of the source's last change", accessMode = Schema.AccessMode.READ_ONLY)
        long modifyIndex) {

    static SourceResponse of(Source source, long modifyIndex) {
        return new SourceResponse(source.name(), source.connection().masked(), source.kind(), source.group(),
                source.enabled(), source.preset(), source.metrics(), source.standbyPreset(), source.standbyMetrics(),
                source.tags(), source.onlyIfPrimary(), source.includePattern(), source.excludePattern(),
                source.keepQueryLiterals(), source.keepCommandSettings(), modifyIndex);
    }
}
