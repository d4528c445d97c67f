package io.pgharvest.window;

import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parameters every window endpoint shares, parsed once: either a span back from now (at most
 * the window's) or a range ({@code from}, {@code to}, optionally with a {@code span} on one side and
 * a {@code step}), and the blocking query. Every bad parameter, the endpoint's own included, is
 * named in one 400.
 *
 * @param span the span back from now; for a range, its length
 * @param range null when neither from nor to was given (the recent window's span back from now)
 */
record WindowRequest(Duration span, TimeRange range, BlockingQuery query) {

    private static final Pattern DAYS = Pattern.compile("(?:(\\d{1,5})d)?(.*)");

    /** The range parameters as given, unparsed. */
    record RangeParameters(String span, String from, String to, String step) {

        static RangeParameters spanOnly(String span) {
            return new RangeParameters(span, null, null, null);
        }

        boolean isRange() {
            return from != null || to != null;
        }
    }

    static WindowRequest parse(String span, String index, String wait, Duration windowSpan,
            Consumer<List<FieldProblem>> moreChecks) {
        return parse(RangeParameters.spanOnly(span), index, wait, windowSpan, Instant.now(), moreChecks);
    }

    static WindowRequest parse(RangeParameters given, String index, String wait, Duration windowSpan, Instant now,
            Consumer<List<FieldProblem>> moreChecks) {
        var problems = new ArrayList<FieldProblem>();
        Duration shown = windowSpan;
        TimeRange range = null;
        if (given.span() != null) {
            if (!isDuration(given.span())) {
                problems.add(new FieldProblem("span", "must be a duration such as 15m, 1h, 90s or 7d"));
            } else {
                shown = parseDuration(given.span());
                if (shown.isZero()) {
                    problems.add(new FieldProblem("span", "must be above 0"));
                } else if (!given.isRange() && shown.compareTo(windowSpan) > 0) {
                    problems.add(new FieldProblem("span", "must be at most the window's span, " + windowSpan
                            + "; a longer range is read from a store with from (and to)"));
                }
            }
        }
        if (given.isRange()) {
            range = range(given, given.span() == null ? null : shown, windowSpan, now, problems);
            if (range != null) {
                shown = range.length();
            }
        } else if (given.step() != null) {
            problems.add(new FieldProblem("step", "applies to a range only: give from (and to)"));
        }
        moreChecks.accept(problems);
        BlockingQuery query = null;
        try {
            query = BlockingQuery.parse(index, wait);
        } catch (InvalidParameterException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
        return new WindowRequest(shown, range, query);
    }

    /** The range of from, to and span, or null with its problems added. */
    private static TimeRange range(RangeParameters given, Duration span, Duration windowSpan, Instant now,
            List<FieldProblem> problems) {
        int before = problems.size();
        Instant from = instant("from", given.from(), problems);
        Instant to = instant("to", given.to(), problems);
        if (given.from() != null && given.to() != null && span != null) {
            problems.add(new FieldProblem("span", "give span with from or with to, not with both"));
        }
        if (problems.size() > before) {
            return null;
        }
        if (from == null) {
            from = to.minus(span == null ? windowSpan : span);
        } else if (to == null) {
            to = span == null ? now : from.plus(span);
        }
        if (from.isAfter(now)) {
            problems.add(new FieldProblem("from", "is in the future (now is " + now + ")"));
            return null;
        }
        if (!to.isAfter(from)) {
            problems.add(new FieldProblem("to", "must be after from (" + from + ")"));
            return null;
        }
        Duration length = Duration.between(from, to);
        if (length.compareTo(TimeRange.MAX_LENGTH) > 0) {
            problems.add(new FieldProblem("from", "the range from " + from + " to " + to + " is longer than "
                    + TimeRange.MAX_LENGTH.toDays() + " days"));
        }
        Duration step = step(given.step(), length, problems);
        return problems.size() > before ? null : step == null ? TimeRange.of(from, to) : new TimeRange(from, to, step);
    }

    private static Duration step(String text, Duration length, List<FieldProblem> problems) {
        if (text == null) {
            return null;
        }
        if (!isDuration(text)) {
            problems.add(new FieldProblem("step", "must be a duration such as 1m, 1h or 1d"));
            return null;
        }
        Duration step = parseDuration(text);
        Duration shortest = TimeRange.shortestStep(length);
        if (step.compareTo(shortest) < 0) {
            problems.add(new FieldProblem("step", "gives more than " + TimeRange.MAX_POINTS
                    + " points a series: at least " + shortest + " for this range"));
        } else if (step.compareTo(length) > 0) {
            problems.add(new FieldProblem("step", "must be at most the range's length, " + length));
        }
        return step;
    }

    /** The API's durations ({@link BlockingQuery#isDuration}) with whole days in front: {@code 7d}, {@code 1d12h}. */
    static boolean isDuration(String text) {
        Matcher days = DAYS.matcher(text.strip());
        return days.matches() && (days.group(2).isEmpty() || BlockingQuery.isDuration(days.group(2)));
    }

    static Duration parseDuration(String text) {
        Matcher days = DAYS.matcher(text.strip());
        if (!days.matches()) {
            throw new IllegalArgumentException("not a duration: check with isDuration first");
        }
        Duration whole = days.group(1) == null ? Duration.ZERO : Duration.ofDays(Long.parseLong(days.group(1)));
        return days.group(2).isEmpty() ? whole : whole.plus(BlockingQuery.parseDuration(days.group(2)));
    }

    /** An RFC 3339 time; a '+' of the offset that arrived unencoded (as a space) is taken back. */
    private static Instant instant(String name, String text, List<FieldProblem> problems) {
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text.strip().replace(' ', '+')).toInstant();
        } catch (DateTimeParseException e) {
            problems.add(new FieldProblem(name, "must be an RFC 3339 time such as 2026-12-01T03:00:00Z"));
            return null;
        }
    }
}
