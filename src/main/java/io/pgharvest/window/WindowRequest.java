package io.pgharvest.window;

import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The parameters every window endpoint shares, parsed once: the span (at most the window's) and the
 * blocking query. Every bad parameter, the endpoint's own included, is named in one 400.
 */
record WindowRequest(Duration span, BlockingQuery query) {

    static WindowRequest parse(String span, String index, String wait, Duration windowSpan,
            Consumer<List<FieldProblem>> moreChecks) {
        var problems = new ArrayList<FieldProblem>();
        Duration shown = windowSpan;
        if (span != null) {
            if (!BlockingQuery.isDuration(span)) {
                problems.add(new FieldProblem("span", "must be a duration such as 15m, 1h or 90s"));
            } else {
                shown = BlockingQuery.parseDuration(span);
                if (shown.isZero() || shown.compareTo(windowSpan) > 0) {
                    problems.add(new FieldProblem("span", "must be above 0 and at most the window's span, " + windowSpan));
                }
            }
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
        return new WindowRequest(shown, query);
    }
}
