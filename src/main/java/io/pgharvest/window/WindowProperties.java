package io.pgharvest.window;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The recent window of numeric series that the console's charts and {@code GET
 * /api/v1/sources/{name}/window} read (docs/console.md).
 *
 * @param enabled whether pgharvest keeps the window at all; off, the charts are empty and the
 *     window's API answers with no series
 * @param span how far back the window keeps points (the longest span the API and charts offer)
 * @param pointsPerSeries the most points one series keeps: a series collected more often than
 *     span / pointsPerSeries keeps only its newest points (720 covers one hour at 5 s)
 * @param seriesPerSource the most series one source may have (its rows times charted columns:
 *     query statistics are the many); new series beyond it are refused and counted
 * @param samplesPerSource the most recent session samples ({@code query_samples} rows) kept per source
 *     for the statement pages' samples
 * @param textsPerSource the most statement texts ({@code query_texts}) kept per source, the most
 *     recently read ones; a text is cut at 8,192 characters
 * @param plansPerSource the most statement plans ({@code query_plans}) kept per source, the latest
 *     plan of each statement and database with the hash it replaced; the most recently read ones
 * @param maxPlanSize the most memory one plan's JSON may hold in the window (2 bytes a character):
 *     a larger plan keeps its hash and times, not its JSON (the sinks still get it whole)
 * @param maxMemory the hard bound on the memory of all series together (points and the fixed cost
 *     of each series, samples, texts and plans); a series that would pass it keeps fewer points, a
 *     new one is refused
 * @param queuedBatches how many published batches may wait for the window's writer; past it a batch is
 *     dropped and counted, never waited for (the reapers never slow down for the window)
 * @param snapshotEvery how often the window writes its series and statement texts to
 *     {@code <data-dir>/window-snapshot.bin} (and once more on a clean stop), which a restart, even
 *     after {@code kill -9}, restores; {@code 0s} writes and restores none. 1 s to 1 h otherwise
 */
@ConfigurationProperties("pgharvest.window")
@Validated
public record WindowProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("1h") @NotNull @DurationMin(minutes = 1) @DurationMax(hours = 24) Duration span,
        @DefaultValue("720") @Min(2) @Max(100_000) int pointsPerSeries,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int seriesPerSource,
        @DefaultValue("500") @Min(0) @Max(1_000_000) int samplesPerSource,
        @DefaultValue("1000") @Min(0) @Max(1_000_000) int textsPerSource,
        @DefaultValue("100") @Min(0) @Max(100_000) int plansPerSource,
        @DefaultValue("128KB") @NotNull DataSize maxPlanSize,
        @DefaultValue("64MB") @NotNull DataSize maxMemory,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int queuedBatches,
        @DefaultValue("1m") @NotNull Duration snapshotEvery) {

    public WindowProperties {
        if (snapshotEvery != null && !snapshotEvery.isZero()
                && (snapshotEvery.compareTo(Duration.ofSeconds(1)) < 0 || snapshotEvery.compareTo(Duration.ofHours(1)) > 0)) {
            throw new IllegalArgumentException("pgharvest.window.snapshot-every must be 0s (no snapshot) or 1s to 1h, got "
                    + snapshotEvery);
        }
        if (maxPlanSize != null && (maxPlanSize.toBytes() < 1024 || maxPlanSize.toBytes() > 64L * 1024 * 1024)) {
            throw new IllegalArgumentException("pgharvest.window.max-plan-size must be 1KB to 64MB, got " + maxPlanSize);
        }
    }

    WindowLimits limits() {
        return new WindowLimits(span.toMillis(), pointsPerSeries, seriesPerSource, samplesPerSource, textsPerSource,
                plansPerSource, maxPlanSize.toBytes());
    }
}
