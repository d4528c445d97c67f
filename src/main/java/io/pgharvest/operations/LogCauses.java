package io.pgharvest.operations;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The log grouped by cause: lines that say the same thing of different sources (300 start-up
 * warnings, a missing extension on every database, the connection refusals of 1,000 failing
 * sources) count as one cause with the sources it concerns. A cause is the level, the logger and
 * the message with its source's name and every number taken out (attempt 3, next in 8 s, a port).
 *
 * <p>Kept apart from the line ring, so a flood of one cause never pushes the others out: at most
 * {@link #MAX_CAUSES} causes (the one silent longest is forgotten first), each with at most
 * {@link #MAX_SOURCES} source names and {@link #MAX_SOURCE_NAMES} over all (counted beyond). Not thread-safe: {@link LogRing} calls it under its lock.
 */
final class LogCauses {

    static final int MAX_CAUSES = 500;
    static final int MAX_SOURCES = 10_000;
    /** Source names listed over all causes together: 500 causes of 10,000 names would be far too many. */
    static final int MAX_SOURCE_NAMES = 20_000;
    private static final Pattern NUMBER = Pattern.compile("\\d+");

    private final Map<String, Cause> byKey = new LinkedHashMap<>(64, 0.75f, true);
    private final Map<Long, Cause> byId = new HashMap<>();
    private long nextId;
    private int names;

    /** One cause as it stands. */
    private static final class Cause {
        final long id;
        final String key;
        final String level;
        final String logger;
        String message;
        Instant first;
        Instant last;
        long count;
        long sequence;
        long sourceCount;
        final LinkedHashSet<String> sources = new LinkedHashSet<>();

        Cause(long id, String key, String level, String logger) {
            this.id = id;
            this.key = key;
            this.level = level;
            this.logger = logger;
        }
    }

    /** Counts {@code line} (already scrubbed) under its cause. */
    void add(LogLine line, String source) {
        String key = key(line, source);
        Cause cause = byKey.get(key);
        if (cause == null) {
            if (byKey.size() == MAX_CAUSES) {
                Cause eldest = byKey.values().iterator().next();
                byKey.remove(eldest.key);
                byId.remove(eldest.id);
                names -= eldest.sources.size();
            }
            cause = new Cause(++nextId, key, line.level(), line.logger());
            cause.first = line.time();
            byKey.put(key, cause);
            byId.put(cause.id, cause);
        }
        cause.message = line.message();
        cause.last = line.time();
        cause.count++;
        cause.sequence = line.sequence();
        if (source != null && !cause.sources.contains(source)) {
            cause.sourceCount++;
            if (cause.sources.size() < MAX_SOURCES && names < MAX_SOURCE_NAMES) {
                cause.sources.add(source);
                names++;
            }
        }
    }

    /** Causes with a line after {@code afterSequence}, the one logged longest ago first. */
    List<LogCause> after(long afterSequence) {
        var found = new ArrayList<LogCause>();
        for (Cause cause : byKey.values()) {
            if (cause.sequence > afterSequence) {
                found.add(new LogCause(cause.id, cause.sequence, cause.level, cause.logger, cause.message,
                        cause.first, cause.last, cause.count, cause.sourceCount));
            }
        }
        found.sort(Comparator.comparingLong(LogCause::sequence));
        return found;
    }

    /** The sources of cause {@code id} in the order they first appeared; empty when it is forgotten. */
    Optional<List<String>> sources(long id) {
        return Optional.ofNullable(byId.get(id)).map(cause -> List.copyOf(cause.sources));
    }

    private static String key(LogLine line, String source) {
        String message = line.message();
        if (source != null && !source.isEmpty()) {
            // the name as a word of its own: source "a" leaves "pg_stat_statements" alone
            message = Pattern.compile("(?<![\\w-])" + Pattern.quote(source) + "(?![\\w-])").matcher(message)
                    .replaceAll("\u0000");
        }
        return line.level() + '\u0001' + line.logger() + '\u0001' + NUMBER.matcher(message).replaceAll("#");
    }
}
