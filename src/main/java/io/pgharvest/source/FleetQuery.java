package io.pgharvest.source;

import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.SourceRules;
import java.util.ArrayList;
import java.util.regex.Pattern;

/**
 * The parameters of {@code GET /api/v1/status}, parsed once: the blocking query's {@code index}
 * and {@code wait}, the change index the client holds ({@code since}) and the page it asks for
 * ({@code after}, {@code limit}).
 *
 * @param blocking the blocking query ({@code index}, {@code wait})
 * @param since the {@code changeIndex} of an earlier answer: only what changed after it is sent; null for the whole fleet
 * @param after the name the previous page ended with: this page starts after it; null for the first page
 * @param limit the most sources (entries and ticks together) in one answer
 */
record FleetQuery(BlockingQuery blocking, Long since, String after, int limit) {

    static final int DEFAULT_LIMIT = 500;
    static final int MAX_LIMIT = 1000;
    private static final Pattern SOURCE_NAME = Pattern.compile(SourceRules.SOURCE_NAME_REGEX);

    /** Parses all five; every parameter that does not parse is named in one problem. */
    static FleetQuery parse(String index, String wait, String since, String after, String limit) {
        var problems = new ArrayList<FieldProblem>();
        BlockingQuery blocking = null;
        try {
            blocking = BlockingQuery.parse(index, wait);
        } catch (InvalidParameterException e) {
            problems.addAll(e.problems());
        }
        Long parsedSince = null;
        if (since != null) {
            parsedSince = wholeNumber(since);
            if (parsedSince == null || parsedSince < 0) {
                problems.add(new FieldProblem("since", "must be a whole number from 0 up, the changeIndex of an earlier answer"));
            }
        }
        String parsedAfter = null;
        if (after != null) {
            parsedAfter = after.strip();
            if (!SOURCE_NAME.matcher(parsedAfter).matches()) {
                problems.add(new FieldProblem("after", "must be a source name (the last one of the previous page)"));
            }
        }
        int parsedLimit = DEFAULT_LIMIT;
        if (limit != null) {
            Long asked = wholeNumber(limit);
            if (asked == null || asked < 1 || asked > MAX_LIMIT) {
                problems.add(new FieldProblem("limit", "must be a whole number from 1 to " + MAX_LIMIT));
            } else {
                parsedLimit = asked.intValue();
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
        return new FleetQuery(blocking, parsedSince, parsedAfter, parsedLimit);
    }

    private static Long wholeNumber(String text) {
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The query of the page after the one that ended with {@code last}: no wait, same since (if changes) and limit. */
    String nextPage(String last, boolean changes) {
        return "/api/v1/status?" + (changes ? "since=" + since + "&" : "") + "after=" + last + "&limit=" + limit;
    }
}
