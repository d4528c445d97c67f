package io.pgharvest.history;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Measurements of a fleet minute by minute, as the reapers publish them (db_stats, backends and
 * query_stats deltas), with values that differ by source and minute, so a read that mixed two
 * sources or two buckets shows. Counters only grow: no resets, so a bucket's rate is also its
 * last value minus the last value before it, over their seconds.
 */
public final class FleetHistory {

    public static final String STATEMENT = "4242";
    public static final String OTHER_STATEMENT = "777";

    private final List<String> sources;
    private final long[] commits;

    public FleetHistory(List<String> sources) {
        this.sources = List.copyOf(sources);
        this.commits = new long[sources.size()];
    }

    public List<String> sources() {
        return sources;
    }

    /** Every source's measurements of minute {@code minute} (minutes since the first), collected at {@code time}. */
    public List<Measurement> minute(long minute, Instant time) {
        var out = new ArrayList<Measurement>(sources.size() * 3);
        for (int i = 0; i < sources.size(); i++) {
            String source = sources.get(i);
            commits[i] += (i + 1) * (10 + minute % 60);
            out.add(new Measurement(source, "db_stats", time, List.of(row(Map.of(), "xact_commit", commits[i],
                    "xact_rollback", commits[i] / 100, "numbackends", (i % 7) + minute % 13)), Map.of()));
            out.add(new Measurement(source, "backends", time, List.of(row(Map.of(), "total", 5 + (i + minute) % 11,
                    "active", minute % 3)), Map.of()));
            long calls = (i + 1) + minute % 5;
            boolean approximate = i == 0 && minute == 100;
            out.add(new Measurement(source, "query_stats", time, List.of(
                    statement(Map.of("queryid", STATEMENT, "dbname", "app", "user", "app_user", "toplevel", "true"),
                            calls, calls * (0.5 + i * 0.01), approximate),
                    statement(Map.of("queryid", OTHER_STATEMENT, "dbname", "app", "user", "app_user",
                            "toplevel", "true"), minute % 2, (minute % 2) * 3.25, false),
                    statement(Map.of("queryid", "other", "dbname", "app"), 3, 1.25, false)), Map.of()));
        }
        return out;
    }

    private static Measurement.Row statement(Map<String, String> tags, long calls, double time, boolean approximate) {
        var values = new LinkedHashMap<String, Object>();
        values.put("calls", calls);
        values.put("total_exec_time", time);
        values.put("rows", calls * 2);
        values.put("shared_blks_read", calls % 4);
        values.put("mean_exec_time", calls > 0 ? time / calls : null);
        values.put("approximate", approximate);
        values.put("interval_seconds", 60.0);
        return new Measurement.Row(values, tags);
    }

    private static Measurement.Row row(Map<String, String> tags, Object... namesAndValues) {
        var values = new LinkedHashMap<String, Object>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            values.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return new Measurement.Row(values, tags);
    }
}
