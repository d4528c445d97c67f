package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samplings of one database's sessions since active_sessions' last rows, summed per session,
 * statement, state and wait ({@link Key}): a session running one statement for 8 of 10 samplings
 * is one row with {@code samples = 8}, not 8 rows, so sampling every second costs the sinks about
 * what one sampling per row interval did. Bounded: a sampling holds at most
 * {@link SessionSampling#MAX_PER_DATABASE} sessions and the tally at most {@link #MAX_KEYS} keys
 * (further keys of the interval are counted in {@link #dropped} only). Used by the source's
 * reaper thread only.
 */
final class SessionTally {

    static final int MAX_KEYS = 2000;

    private record Key(int pid, Long queryId, String state, String waitEventType, String waitEvent) {
    }

    /** One key's samples: the counts and the latest values. */
    private static final class Seen {
        int samples;
        double longest;
        double longestTransaction;
        SessionSampling.Session latest;
        boolean inLatestSampling;
    }

    private final Map<Key, Seen> seen = new LinkedHashMap<>();
    private int samplings;
    private int dropped;

    /** Adds one sampling of the database's sessions. */
    void add(List<SessionSampling.Session> sessions) {
        samplings++;
        seen.values().forEach(s -> s.inLatestSampling = false);
        for (SessionSampling.Session session : sessions) {
            var key = new Key(session.pid(), session.queryId(), session.state(), session.waitEventType(),
                    session.waitEvent());
            Seen counted = seen.get(key);
            if (counted == null) {
                if (seen.size() >= MAX_KEYS) {
                    dropped++;
                    continue;
                }
                counted = new Seen();
                seen.put(key, counted);
            }
            counted.samples++;
            counted.latest = session;
            counted.inLatestSampling = true;
            counted.longest = Math.max(counted.longest, session.duration() == null ? 0 : session.duration());
            counted.longestTransaction = Math.max(counted.longestTransaction,
                    session.transactionDuration() == null ? 0 : session.transactionDuration());
        }
    }

    /** How many samplings were added since the last {@link #drain}. */
    int samplings() {
        return samplings;
    }

    /**
     * The rows of the samplings since the last drain (as query_samples' rows, with {@code samples},
     * {@code samplings} and {@code running}), and starts over.
     */
    List<Measurement.Row> drain(String database) {
        var rows = new ArrayList<Measurement.Row>(seen.size());
        seen.forEach((key, counted) -> rows.add(row(key, counted, database)));
        seen.clear();
        samplings = 0;
        dropped = 0;
        return rows;
    }

    private Measurement.Row row(Key key, Seen counted, String database) {
        SessionSampling.Session s = counted.latest;
        var values = new LinkedHashMap<String, Object>();
        values.put("state", key.state());
        values.put("duration_s", counted.longest);
        values.put("transaction_duration_s", counted.longestTransaction);
        values.put("blocking_pids", s.blockingPids());
        values.put("blocked_by", (long) s.blockedBy());
        values.put("backend_type", s.backendType());
        values.put("application_name", s.applicationName());
        values.put("user_name", s.userName());
        values.put("samples", (long) counted.samples);
        values.put("samplings", (long) samplings);
        values.put("running", counted.inLatestSampling);
        if (dropped > 0) {
            values.put("sessions_dropped", (long) dropped);
        }
        return new Measurement.Row(values, Map.of("pid", Integer.toString(key.pid()), "queryid",
                key.queryId() == null ? "" : Long.toString(key.queryId()), "dbname", database,
                "wait_event_type", key.waitEventType(), "wait_event", key.waitEvent()));
    }
}
