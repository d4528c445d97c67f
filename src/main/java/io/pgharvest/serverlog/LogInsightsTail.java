package io.pgharvest.serverlog;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.serverlog.event.EntryClassifier;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.serverlog.event.LogEvent;
import io.pgharvest.serverlog.event.LogTexts;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.LogPositions.LogPosition;
import io.pgharvest.store.StoreUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One source's reading of its server log for the log_* metrics: read once per tick by whichever
 * of them runs first, the entries sorted into events by category, each category's events kept
 * until its metric collects them. Lives on the source's {@link io.pgharvest.nativemetric.SourceShelf},
 * so it is used by the source's reaper thread only and dropped with the source.
 *
 * <p>Bounds: a read takes at most {@value #READ_BUDGET} bytes of log (the rest waits for the next
 * ticks); events waiting for their metric take at most {@value #MAX_QUEUED_CHARS} characters of
 * text and {@value #MAX_QUEUED_EVENTS} events per category, beyond that they are dropped and
 * counted; a category whose metric has not collected for {@link #UNCOLLECTED} (the source does not
 * select it) is not kept at all. The read position is saved in the store after every read.
 */
final class LogInsightsTail {

    static final long READ_BUDGET = 8L << 20;
    static final int MAX_QUEUED_EVENTS = 5_000;
    static final long MAX_QUEUED_CHARS = 4L << 20;
    static final Duration UNCOLLECTED = Duration.ofMinutes(15);
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    private static final Logger LOG = LoggerFactory.getLogger(LogInsightsTail.class);

    private final String source;
    private final LogPositions positions;
    private final long budget;
    private final LogFollower follower = new LogFollower();
    private final EntryClassifier classifier = new EntryClassifier();
    private final Map<LogCategory, ArrayDeque<Measurement.Row>> queued = new EnumMap<>(LogCategory.class);
    private final Map<LogCategory, Instant> collectedAt = new EnumMap<>(LogCategory.class);
    private final Map<LogCategory, Long> dropped = new EnumMap<>(LogCategory.class);
    private long queuedChars;
    private Instant startedAt;
    private Instant readAt;
    private LogSettings settings;
    private LogDestination destination;
    private Exception failure;
    private LogPosition position;
    private boolean positionLoaded;

    LogInsightsTail(String source, LogPositions positions, long budget) {
        this.source = source;
        this.positions = positions;
        this.budget = budget;
    }

    /**
     * The events of {@code category} since its previous collection, reading the log first unless
     * this tick read it already.
     *
     * @throws NativeMetric.Unavailable when the server does not log what the category needs (says which setting)
     */
    List<Measurement.Row> collect(LogCategory category, NativeTarget target) throws Exception {
        collectedAt.put(category, target.now());
        if (!target.now().equals(readAt)) {
            readAt = target.now();
            failure = null;
            try {
                read(target);
            } catch (Exception e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
        List<String> missing = settings.missingFor(category, destination);
        if (!missing.isEmpty()) {
            drain(category); // nothing of it is wanted until the server logs it as the category needs
            throw new NativeMetric.Unavailable(String.join("; ", missing));
        }
        return drain(category);
    }

    private void read(NativeTarget target) throws Exception {
        if (startedAt == null) {
            startedAt = target.now();
        }
        try {
            settings = LogSettings.of(target.sql().query(LogSettings.SQL).getFirst());
        } catch (SQLException e) {
            throw privilege(e, "reading the log settings (log_directory, data_directory) needs pg_monitor"
                    + " or pg_read_all_settings");
        }
        if (!settings.loggingCollector()) {
            throw new NativeMetric.Unavailable("logging_collector is off: the server writes no log files"
                    + " (set logging_collector = on and restart the server)");
        }
        destination = settings.chosenDestination().orElseThrow(() -> new NativeMetric.Unavailable(
                "log_destination '" + settings.destination() + "' has none of csvlog, jsonlog, stderr"));
        if (!positionLoaded) {
            position = positions.find(source).orElse(null);
            positionLoaded = true;
        }
        LogFiles files = LogFiles.open(target, settings.directory(), settings.dataDirectory());
        var texts = new LogTexts(target.keepQueryLiterals());
        LogFollower.Read read;
        try {
            List<LogFiles.LogFile> listed = files.list("").stream().filter(f -> destination.owns(f.name())).toList();
            read = follower.follow(files, listed, destination, destination.parser(settings.prefix()), position, budget,
                    entry -> classifier.classify(entry, texts).forEach(event -> keep(event, target.now())));
        } catch (SQLException e) {
            throw privilege(e, "reading the log through SQL needs pg_monitor (pg_ls_logdir) and"
                    + " pg_read_server_files or EXECUTE on pg_read_binary_file(text, bigint, bigint, boolean)");
        }
        if (read.position() != null && !read.position().equals(position)) {
            position = read.position();
            try {
                positions.save(source, position);
            } catch (StoreUnavailableException e) {
                LOG.warn("source {}: the log read position is not saved, saved again with the next read: {}", source,
                        e.getMessage());
            }
        }
    }

    private void keep(LogEvent event, Instant now) {
        LogCategory category = event.category();
        Instant collected = collectedAt.get(category);
        boolean wanted = collected == null ? Duration.between(startedAt, now).compareTo(UNCOLLECTED) < 0
                : Duration.between(collected, now).compareTo(UNCOLLECTED) < 0;
        if (!wanted) {
            return;
        }
        ArrayDeque<Measurement.Row> queue = queued.computeIfAbsent(category, c -> new ArrayDeque<>());
        long chars = chars(event.row());
        if (queue.size() >= MAX_QUEUED_EVENTS || queuedChars + chars > MAX_QUEUED_CHARS) {
            dropped.merge(category, 1L, Long::sum);
            return;
        }
        queue.add(event.row());
        queuedChars += chars;
    }

    private List<Measurement.Row> drain(LogCategory category) {
        ArrayDeque<Measurement.Row> queue = queued.remove(category);
        Long lost = dropped.remove(category);
        if (lost != null) {
            LOG.warn("source {}: {} {} events dropped: more than the bound waited for their metric", source, lost,
                    category.metric());
        }
        if (queue == null) {
            return List.of();
        }
        queue.forEach(row -> queuedChars -= chars(row));
        return category.counted() ? counted(queue) : List.copyOf(queue);
    }

    /** Equal events (all columns but {@code count}, and tags) as one row with their number. */
    private static List<Measurement.Row> counted(ArrayDeque<Measurement.Row> queue) {
        var byKey = new LinkedHashMap<List<Object>, Measurement.Row>();
        var counts = new LinkedHashMap<List<Object>, Long>();
        for (Measurement.Row row : queue) {
            var key = new ArrayList<Object>();
            row.values().forEach((column, value) -> {
                if (!column.equals("count") && !column.equals("log_time")) {
                    key.add(value);
                }
            });
            key.add(row.tags());
            byKey.putIfAbsent(key, row);
            counts.merge(key, 1L, Long::sum);
        }
        var rows = new ArrayList<Measurement.Row>(byKey.size());
        byKey.forEach((key, row) -> {
            var values = new LinkedHashMap<>(row.values());
            values.put("count", counts.get(key));
            rows.add(new Measurement.Row(values, row.tags()));
        });
        return rows;
    }

    private static long chars(Measurement.Row row) {
        long chars = 64;
        for (Object value : row.values().values()) {
            if (value instanceof String text) {
                chars += text.length();
            }
        }
        return chars;
    }

    private static Exception privilege(SQLException e, String what) {
        if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
            return new NativeMetric.Unavailable(what + " [SQLState 42501]: " + e.getMessage());
        }
        return e;
    }
}
