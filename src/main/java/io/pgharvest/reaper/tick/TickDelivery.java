package io.pgharvest.reaper.tick;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.model.BoundedText;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.OutputNames;
import io.pgharvest.reaper.instance.FanOutSplit;
import io.pgharvest.reaper.instance.Instance;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where one tick's results go: the source's measurements, the instance's shared results (an
 * instance-level result, or a fanned-out one split per database, which the other sources of the
 * instance deliver), and the ledger's last success. Owns what the tick has delivered so far, also
 * when the session is lost halfway through, and the instance's fetches the tick claimed
 * ({@link #claim}), which it hands back when the tick is over ({@link #releaseClaims}).
 *
 * <p>Not thread-safe: one per tick, on the reaper's thread.
 */
final class TickDelivery {

    private final CollectionPlan config;
    private final Instance instance;
    private final String database;
    private final MetricLedger ledger;
    private final ReaperMeters.SourceMeters sourceMeters;
    /** Metrics of this tick that run their instance-wide variant. */
    private final Set<String> fannedOut = new HashSet<>();
    private final List<Measurement> out = new ArrayList<>();
    /** Shared metrics this tick claimed the instance's fetch of ({@link io.pgharvest.reaper.instance.InstanceMetricCache#tryClaim}). */
    private final List<String> claimed = new ArrayList<>();

    TickDelivery(CollectionPlan config, Instance instance, String database, MetricLedger ledger,
            ReaperMeters.SourceMeters sourceMeters) {
        this.config = config;
        this.instance = instance;
        this.database = database;
        this.ledger = ledger;
        this.sourceMeters = sourceMeters;
    }

    /** The measurements delivered so far, in no particular order. */
    List<Measurement> measurements() {
        return out;
    }

    /** The instance-wide SQL to run for {@code metric} on this tick, or null to run it per database. */
    String fanOutSql(String metric, MetricDefinition definition, int major) {
        if (definition.instanceLevel() || !instance.fansOut(metric)) {
            return null;
        }
        return definition.instanceSqlFor(major).orElse(null);
    }

    /**
     * Claims the instance's fetch of the shared {@code metric} for this tick; false when another
     * source of the instance is fetching it (this source delivers it on its next tick).
     */
    boolean claim(String metric, Instant now, Duration interval) {
        if (!instance.results().tryClaim(metric, now, now.plus(interval))) {
            return false;
        }
        claimed.add(metric);
        return true;
    }

    /** Fetched and shared, failed, or not run this tick: the next source due may fetch the claimed metrics. */
    void releaseClaims() {
        for (String metric : claimed) {
            instance.results().release(metric);
        }
    }

    /** {@code metric} runs its instance-wide variant on this tick: its result is split and shared. */
    void fanningOut(String metric) {
        fannedOut.add(metric);
    }

    /** Delivers another source's shared result for {@code metric} when there is a fresh one this source has not. */
    boolean deliverCached(String metric, MetricDefinition definition, Duration interval, Instant now) {
        var cached = instance.results().reusable(metric, interval, now, ledger.sharedDelivered(metric));
        if (cached.isEmpty()) {
            return false;
        }
        out.add(measurement(definition, cached.get().rowsFor(database), cached.get().fetchedAt()));
        ledger.deliveredShared(metric, cached.get());
        ledger.succeeded(metric, now);
        sourceMeters.fetch(ReaperMeters.CACHED, 1);
        return true;
    }

    /**
     * Delivers one metric's result, unless its names break the one rule of output names
     * ({@link OutputNames}): then the metric fails alone, with the reason, and no sink and no other
     * source of the instance gets the result.
     */
    void deliver(String metric, FetchedRows rows, Instant now) {
        MetricDefinition definition = config.definitions().get(metric);
        Optional<String> refusal = Optional.ofNullable(rows.refusal()).or(() -> OutputNames.clash(
                definition.effectiveStorageName(), column -> !definition.isGauge(column), rows.rows()));
        if (refusal.isPresent()) {
            ledger.failed(metric, "metric " + metric + ": " + refusal.get(), now);
            return;
        }
        FetchedRows own = rows;
        if (fannedOut.contains(metric)) {
            try {
                var entry = instance.results().putSplit(metric, now, FanOutSplit.byDatabase(metric, rows));
                ledger.deliveredShared(metric, entry);
                own = entry.rowsFor(database);
            } catch (IllegalArgumentException e) {
                ledger.failed(metric, BoundedText.messageOf(e), now);
                return;
            }
        } else if (definition.instanceLevel()) { // on an instance that shares nothing, kept by nobody
            ledger.deliveredShared(metric, instance.results().put(metric, now, rows));
        }
        out.add(measurement(definition, own, now));
        ledger.succeeded(metric, now);
    }

    private Measurement measurement(MetricDefinition definition, FetchedRows rows, Instant collectedAt) {
        Instant time = rows.reportedTime() != null ? rows.reportedTime() : collectedAt;
        return new Measurement(config.name(), definition.effectiveStorageName(), time, rows.rows(),
                config.source().tags());
    }
}
