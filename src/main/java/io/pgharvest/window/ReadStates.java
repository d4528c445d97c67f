package io.pgharvest.window;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@link ReadState}s of a source's metrics at one moment: its selection (as primary and, when it
 * has one, as standby: the view does not know the server's role) against its latest reads.
 */
final class ReadStates {

    private static final Duration STALE_SLACK = Duration.ofSeconds(10);

    private final Map<String, Integer> selected;
    private final Optional<LatestReads.SourceReads> reads;
    private final Instant now;

    ReadStates(ConfigSnapshot config, String source, Optional<LatestReads.SourceReads> reads, Instant now) {
        this.selected = selectionOf(config, config.sources().get(source));
        this.reads = reads;
        this.now = now;
    }

    private static Map<String, Integer> selectionOf(ConfigSnapshot config, Source source) {
        var selection = new LinkedHashMap<String, Integer>();
        if (source != null) {
            selection.putAll(config.selectedMetrics(source, true));
            selection.putAll(config.selectedMetrics(source, false));
        }
        // Reads arrive under a metric's storage name (active_sessions is stored as query_samples).
        var byStorage = new LinkedHashMap<String, Integer>();
        selection.forEach((metric, interval) -> {
            var definition = config.metrics().get(metric);
            byStorage.merge(definition == null ? metric : definition.effectiveStorageName(), interval, Math::min);
        });
        return byStorage;
    }

    ReadState of(String metric) {
        Integer interval = selected.get(metric);
        Optional<Reading> reading = reads.flatMap(r -> r.of(metric));
        if (reading.isEmpty()) {
            return new ReadState(metric, interval == null ? ReadState.NOT_COLLECTED : ReadState.WAITING, interval, null,
                    null, false, null);
        }
        Reading read = reading.get();
        // A metric read before and since dropped from the selection still shows its last read, stale.
        boolean stale = interval == null
                || read.at().plus(Duration.ofSeconds(2L * interval)).plus(STALE_SLACK).isBefore(now);
        return new ReadState(metric, ReadState.COLLECTED, interval, read.at(), read.rowCount(), stale,
                read.refused() ? ReadState.WINDOW_FULL : null);
    }

    /** The rows of the metric's latest read, empty when it has none. */
    ViewRows rows(String metric) {
        return reads.flatMap(r -> r.of(metric)).map(Reading::rows).orElse(ViewRows.EMPTY);
    }

    /** Every metric the source selects or has read, with its state. */
    Map<String, ReadState> all() {
        var states = new TreeMap<String, ReadState>();
        selected.keySet().forEach(metric -> states.put(metric, of(metric)));
        reads.ifPresent(r -> r.byMetric().keySet().forEach(metric -> states.put(metric, of(metric))));
        return states;
    }
}
