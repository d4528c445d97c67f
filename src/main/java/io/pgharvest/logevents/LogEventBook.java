package io.pgharvest.logevents;

import io.pgharvest.model.Measurement;
import io.pgharvest.serverlog.event.LogCategory;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The latest log events of each source (the rows of the log_* metrics), newest first, for the
 * console's Log tab: at most {@value #MAX_EVENTS} events and {@value #MAX_CHARS} characters of
 * text per source; older events leave as newer ones arrive. Written by the one {@link LogEventsFeed}
 * thread, read by API requests.
 */
final class LogEventBook {

    static final int MAX_EVENTS = 1_000;
    static final long MAX_CHARS = 2L << 20;
    private static final Map<String, LogCategory> BY_METRIC = byMetric();

    private final Map<String, Shelf> sources = new ConcurrentHashMap<>();

    /** One event as the API shows it. */
    record LogEventView(Instant collectedAt, String metric, Map<String, Object> values, Map<String, String> tags) {
    }

    static boolean isLogMetric(String metric) {
        return BY_METRIC.containsKey(metric);
    }

    static List<String> metrics() {
        return List.copyOf(BY_METRIC.keySet());
    }

    void record(Measurement measurement) {
        if (!isLogMetric(measurement.metric()) || measurement.rows().isEmpty()) {
            return;
        }
        Shelf shelf = sources.computeIfAbsent(measurement.source(), s -> new Shelf());
        for (Measurement.Row row : measurement.rows()) {
            shelf.add(new LogEventView(measurement.time(), measurement.metric(), row.values(), row.tags()));
        }
    }

    /** The source's kept events that {@code filter} accepts, newest first, at most {@code limit}. */
    List<LogEventView> read(String source, Predicate<LogEventView> filter, int limit) {
        Shelf shelf = sources.get(source);
        return shelf == null ? List.of() : shelf.read(filter, limit);
    }

    /** Forgets sources that no longer exist. */
    void retain(java.util.Set<String> existing) {
        sources.keySet().retainAll(existing);
    }

    private static Map<String, LogCategory> byMetric() {
        var map = new LinkedHashMap<String, LogCategory>();
        for (LogCategory category : LogCategory.values()) {
            map.put(category.metric(), category);
        }
        return Map.copyOf(map);
    }

    private static final class Shelf {

        private final ReentrantLock lock = new ReentrantLock();
        private final ArrayDeque<LogEventView> events = new ArrayDeque<>();
        private long chars;

        void add(LogEventView event) {
            lock.lock();
            try {
                events.addFirst(event);
                chars += chars(event);
                while (events.size() > MAX_EVENTS || chars > MAX_CHARS && events.size() > 1) {
                    chars -= chars(events.removeLast());
                }
            } finally {
                lock.unlock();
            }
        }

        List<LogEventView> read(Predicate<LogEventView> filter, int limit) {
            lock.lock();
            try {
                var out = new ArrayList<LogEventView>();
                for (Iterator<LogEventView> it = events.iterator(); it.hasNext() && out.size() < limit; ) {
                    LogEventView event = it.next();
                    if (filter.test(event)) {
                        out.add(event);
                    }
                }
                return out;
            } finally {
                lock.unlock();
            }
        }

        private static long chars(LogEventView event) {
            long total = 64;
            for (Object value : event.values().values()) {
                if (value instanceof String text) {
                    total += text.length();
                }
            }
            return total;
        }
    }
}
