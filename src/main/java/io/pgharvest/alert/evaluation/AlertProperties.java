package io.pgharvest.alert.evaluation;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Alert evaluation (docs/alerts.md).
 *
 * @param enabled whether pgharvest evaluates alert rules at all; off, no alert fires (the rules
 *     stay editable)
 * @param round how often firing alerts are re-sent to the receivers (an Alertmanager forgets an
 *     alert four rounds after its last re-send), rule changes of other fleet instances are read
 *     and alerts of deleted rules resolve
 * @param costLimit the most a condition may cost, estimated when its rule is saved: one per
 *     node of the expression, a comprehension's body times the elements it visits (100 for a list
 *     of unknown size); a rule over it is refused
 * @param queuedBatches how many published batches may wait for evaluation; past it a batch is
 *     dropped and counted ({@code pgharvest.alert.batches.dropped}), never waited for
 */
@ConfigurationProperties("pgharvest.alert")
@Validated
public record AlertProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("30s") @NotNull @DurationMin(millis = 100) @DurationMax(minutes = 5) Duration round,
        @DefaultValue("10000") @Min(10) @Max(10_000_000) long costLimit,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int queuedBatches) {
}
