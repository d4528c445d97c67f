package io.pgharvest.operations;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The in-memory ring of recent log lines behind {@code GET /api/v1/logs} (the console's log view).
 * The ring keeps the newest lines within both bounds; each line's message is already cut at
 * {@link io.pgharvest.model.BoundedText#MAX_CHARS} characters before it is kept.
 *
 * @param maxLines the most lines kept
 * @param maxBytes the most memory the kept lines may take, counted per line as 2 bytes per
 *     character of its texts plus {@value LogRing#LINE_OVERHEAD_BYTES} bytes; older lines are
 *     forgotten first
 */
@ConfigurationProperties("pgharvest.log-view")
@Validated
public record LogViewProperties(
        @DefaultValue("2000") @Min(1) @Max(1_000_000) int maxLines,
        @DefaultValue("2MB") @NotNull DataSize maxBytes) {
}
