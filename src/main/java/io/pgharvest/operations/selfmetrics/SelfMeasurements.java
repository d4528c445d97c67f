package io.pgharvest.operations.selfmetrics;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.sink.SinkStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns the sinks' and the reapers' statuses into the {@link SelfMetrics} measurements of one moment. */
final class SelfMeasurements {

    private SelfMeasurements() {
    }

    static List<Measurement> of(String source, Instant now, List<SinkStatus> sinks, List<SourceRuntimeStatus> reapers) {
        var sinkRows = new ArrayList<Measurement.Row>();
        for (SinkStatus sink : sinks) {
            var values = new LinkedHashMap<String, Object>();
            values.put("up", sink.up() ? 1L : 0L);
            values.put("queued", sink.queued());
            values.put("spilled", sink.spilled());
            values.put("spilled_bytes", sink.spilledBytes());
            values.put("written", sink.written());
            values.put("dropped", sink.dropped());
            values.put("failures", sink.failures());
            values.put("parked", sink.parked());
            values.put("rejected", sink.rejected());
            values.put("rejected_batches", sink.rejectedBatches());
            sinkRows.add(new Measurement.Row(values, Map.of("sink", sink.name())));
        }
        // Only the reapers in trouble: a row per healthy reaper would cost the sinks a row per
        // source; a measurement without rows still tells alert evaluation that the trouble ended.
        var reaperRows = new ArrayList<Measurement.Row>();
        for (SourceRuntimeStatus reaper : reapers) {
            if (reaper.state() == SessionState.STALLED || reaper.state() == SessionState.FAILED) {
                var values = new LinkedHashMap<String, Object>();
                values.put("stalled", reaper.state() == SessionState.STALLED ? 1L : 0L);
                values.put("failed", reaper.state() == SessionState.FAILED ? 1L : 0L);
                values.put("since_last_tick_s", reaper.lastTickStart() == null ? null
                        : Duration.between(reaper.lastTickStart(), now).toMillis() / 1000.0);
                reaperRows.add(new Measurement.Row(values, Map.of("reaper", reaper.source())));
            }
        }
        return List.of(new Measurement(source, SelfMetrics.SINKS, now, sinkRows, Map.of()),
                new Measurement(source, SelfMetrics.REAPERS, now, reaperRows, Map.of()));
    }
}
