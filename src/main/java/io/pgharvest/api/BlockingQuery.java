package io.pgharvest.api;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.support.ChangeNotifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.ResponseEntity;

/**
 * The {@code ?index=N&wait=D} parameters of a Consul-style blocking query.
 *
 * <p>Without {@code index} the request answers at once. With it, the request answers as soon as
 * the notifier's index differs from N (a greater N, e.g. from before a restart of a store that
 * lost its index, also answers at once), or after {@code wait} plus a random jitter of up to
 * wait/16 (so that many clients do not come back in step) with the unchanged data.
 *
 * @param index the index the client has seen, or null for a plain read
 * @param maxWait how long to wait for a change (the {@code wait} parameter), at most {@link #MAX_WAIT}
 */
public record BlockingQuery(Long index, Duration maxWait) {

    public static final String INDEX_HEADER = "X-Pgharvest-Index";
    public static final Duration DEFAULT_WAIT = Duration.ofMinutes(5);
    public static final Duration MAX_WAIT = Duration.ofMinutes(10);
    private static final Pattern DURATION = Pattern.compile("(?:\\d{1,9}(?:ms|s|m|h))+");
    private static final Pattern DURATION_PART = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    /**
     * Parses the raw parameters; a {@code wait} above {@link #MAX_WAIT} is lowered to it.
     *
     * @throws InvalidParameterException naming {@code index} or {@code wait} when they do not parse
     */
    public static BlockingQuery parse(String index, String wait) {
        var problems = new ArrayList<FieldProblem>();
        Long parsedIndex = null;
        if (index != null) {
            try {
                parsedIndex = Long.parseLong(index.trim());
                if (parsedIndex < 0) {
                    problems.add(new FieldProblem("index", "must not be negative"));
                }
            } catch (NumberFormatException e) {
                problems.add(new FieldProblem("index", "must be a whole number, the value of a previous "
                        + INDEX_HEADER + " header"));
            }
        }
        Duration parsedWait = DEFAULT_WAIT;
        if (wait != null) {
            if (DURATION.matcher(wait.trim()).matches()) {
                parsedWait = parseDuration(wait.trim());
            } else {
                problems.add(new FieldProblem("wait", "must be a duration such as 250ms, 30s, 5m or 1m30s"));
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
        return new BlockingQuery(parsedIndex, parsedWait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : parsedWait);
    }

    /**
     * Blocks while the notifier's index still equals {@link #index()}, up to the wait plus jitter,
     * or until the application closes ({@link ParkedRequests}).
     * Read the data only after this returns: the store publishes data before it advances the
     * index, so data read afterwards is at least as new as the returned index.
     *
     * @return the index to report in {@value #INDEX_HEADER}
     */
    public long await(ChangeNotifier notifier) {
        long current = notifier.index();
        if (index == null || index != current) {
            return current;
        }
        long jitterBound = maxWait.toNanos() / 16;
        Duration patience = maxWait.plusNanos(jitterBound > 0 ? ThreadLocalRandom.current().nextLong(jitterBound) : 0);
        try {
            return ParkedRequests.park(notifier, index, patience);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return notifier.index();
        }
    }

    /**
     * Waits as {@link #await} does, then answers what {@code read} returns: it runs after the wait,
     * so its data is at least as new as the index the answer carries in {@value #INDEX_HEADER}.
     */
    public <T> ResponseEntity<T> answer(ChangeNotifier notifier, Supplier<T> read) {
        long seen = await(notifier);
        return answered(seen, read.get());
    }

    /** The index the client has seen, or 0 for a plain read (every item is newer than 0). */
    public long seenOrZero() {
        return index == null ? 0 : index;
    }

    /** A 200 answer of {@code body} read after a wait that returned {@code seen}. */
    public static <T> ResponseEntity<T> answered(long seen, T body) {
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(body);
    }

    /** Whether {@code text} is a duration in this API's form (250ms, 30s, 5m, 1h, 1m30s). */
    public static boolean isDuration(String text) {
        return text != null && DURATION.matcher(text.trim()).matches();
    }

    /** Parses a duration in this API's form; check it with {@link #isDuration} first. */
    public static Duration parseDuration(String text) {
        text = text.trim();
        Duration total = Duration.ZERO;
        Matcher part = DURATION_PART.matcher(text);
        while (part.find()) {
            long amount = Long.parseLong(part.group(1));
            total = total.plus(switch (part.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            });
        }
        return total;
    }
}
