package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A source's most recent session samples ({@code query_samples} rows), newest last, at most
 * {@code capacity}, each reserved against the window's {@link MemoryBudget}. Not thread-safe: its
 * {@link SourceWindow} guards it.
 */
final class SessionSamples {

    static final String METRIC = "query_samples";

    private final int capacity;
    private final MemoryBudget budget;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private final ArrayDeque<Long> reserved = new ArrayDeque<>();
    /** When the latest sampling was taken (epoch ms), and the active statements it saw by database and query id. */
    private long latestAt = Long.MIN_VALUE;
    private Map<Running, Integer> latestRunning = Map.of();

    /** A statement of a database (query id as the tag reads). */
    record Running(String dbname, String queryid) {
    }

    SessionSamples(int capacity, MemoryBudget budget) {
        this.capacity = capacity;
        this.budget = budget;
    }

    /** Keeps the measurement's rows; returns how many it refused (no room in the budget). */
    int record(Measurement m) {
        noteRunning(m);
        int refused = 0;
        for (Measurement.Row row : m.rows()) {
            Sample sample = sampleOf(m.time(), row);
            long bytes = sample.bytes();
            if (samples.size() == capacity) {
                dropOldest();
            }
            if (!budget.reserve(bytes)) {
                refused++;
                continue;
            }
            samples.addLast(sample);
            reserved.addLast(bytes);
        }
        return refused;
    }

    private static Sample sampleOf(Instant time, Measurement.Row row) {
        Map<String, Object> v = row.values();
        Map<String, String> tags = row.tags();
        return new Sample(time, tags.getOrDefault("pid", text(v.get("pid"))), tags.getOrDefault("queryid", ""),
                tags.getOrDefault("dbname", text(v.get("dbname"))), text(v.get("state")),
                tags.getOrDefault("wait_event_type", text(v.get("wait_event_type"))),
                tags.getOrDefault("wait_event", text(v.get("wait_event"))),
                v.get("duration_s") instanceof Number n ? n.doubleValue() : null,
                text(v.get("blocking_pids")), text(v.get("application_name")), text(v.get("user_name")));
    }

    /**
     * The active statements of the newest sampling: every row of a query_samples measurement is a
     * session at that sampling; an active_sessions row says whether the latest of the samplings it
     * sums saw it ({@code running}).
     */
    private void noteRunning(Measurement m) {
        long at = m.time().toEpochMilli();
        if (at < latestAt) {
            return;
        }
        var running = new HashMap<Running, Integer>();
        for (Measurement.Row row : m.rows()) {
            String queryid = row.tags().getOrDefault("queryid", "");
            if (!queryid.isEmpty() && "active".equals(row.values().get("state"))
                    && !Boolean.FALSE.equals(row.values().get("running"))) {
                running.merge(new Running(row.tags().getOrDefault("dbname", ""), queryid), 1, Integer::sum);
            }
        }
        latestAt = at;
        latestRunning = Map.copyOf(running);
    }

    /**
     * The active statements of the newest sampling (how many sessions ran each), when it was taken at
     * or after {@code notBefore}; empty when it is older (the source stopped being sampled).
     */
    Map<Running, Integer> running(long notBefore) {
        return latestAt >= notBefore ? latestRunning : Map.of();
    }

    private static String text(Object value) {
        return value == null ? "" : value.toString();
    }

    private void dropOldest() {
        samples.removeFirst();
        budget.release(reserved.removeFirst());
    }

    /** The samples at or after {@code from} that {@code wanted} accepts, newest first, at most {@code limit}. */
    List<Sample> read(long from, Predicate<Sample> wanted, int limit) {
        var found = new ArrayList<Sample>();
        for (Iterator<Sample> newestFirst = samples.descendingIterator(); newestFirst.hasNext() && found.size() < limit;) {
            Sample sample = newestFirst.next();
            if (sample.time().toEpochMilli() < from) {
                break;
            }
            if (wanted.test(sample)) {
                found.add(sample);
            }
        }
        return found;
    }

    /** Drops samples taken before {@code cutoff}; true when none is left. */
    boolean dropOlderThan(long cutoff) {
        while (!samples.isEmpty() && samples.peekFirst().time().toEpochMilli() < cutoff) {
            dropOldest();
        }
        return samples.isEmpty();
    }
}
