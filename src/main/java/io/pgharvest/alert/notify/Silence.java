package io.pgharvest.alert.notify;

import io.pgharvest.model.FieldProblem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Alerts whose labels match every one of {@code matchers} are not sent between {@code startsAt}
 * and {@code endsAt} by pgharvest's own receivers (webhook, Slack, e-mail); such a notification is
 * recorded as silenced. Alertmanager's receiver sends regardless: Alertmanager applies its own.
 *
 * @param id assigned when created
 * @param origin {@code pgharvest}, or {@code alertmanager} for one of Alertmanager's own (listed, not kept here)
 */
public record Silence(String id, List<LabelMatcher> matchers, Instant startsAt, Instant endsAt, String author,
        String comment, String origin) {

    public static final String PGHARVEST = "pgharvest";
    public static final String ALERTMANAGER = "alertmanager";

    public Silence {
        matchers = matchers == null ? List.of() : List.copyOf(matchers);
        author = author == null ? "" : author;
        comment = comment == null ? "" : comment;
        origin = origin == null ? PGHARVEST : origin;
    }

    public Silence withId(String newId) {
        return new Silence(newId, matchers, startsAt, endsAt, author, comment, origin);
    }

    /** Whether it silences an alert with {@code labels} at {@code now}. */
    public boolean silences(Map<String, String> labels, Instant now) {
        return !now.isBefore(startsAt) && now.isBefore(endsAt) && LabelMatcher.all(matchers, labels);
    }

    /** {@code pending}, {@code active} or {@code expired} at {@code now}, as Alertmanager says it. */
    public String state(Instant now) {
        return now.isBefore(startsAt) ? "pending" : now.isBefore(endsAt) ? "active" : "expired";
    }

    /** What is wrong with a silence given to the API; nothing for a valid one. */
    public List<FieldProblem> problems() {
        var problems = new ArrayList<FieldProblem>();
        if (matchers.isEmpty()) {
            problems.add(new FieldProblem("matchers", "at least one matcher is required (a silence of everything"
                    + " would hide every alert)"));
        }
        for (int i = 0; i < matchers.size(); i++) {
            problems.addAll(matchers.get(i).problems("matchers[" + i + "]"));
        }
        if (endsAt == null) {
            problems.add(new FieldProblem("endsAt", "is required"));
        } else if (startsAt != null && !endsAt.isAfter(startsAt)) {
            problems.add(new FieldProblem("endsAt", "must be after startsAt"));
        }
        if (startsAt == null) {
            problems.add(new FieldProblem("startsAt", "is required"));
        }
        if (author.isBlank()) {
            problems.add(new FieldProblem("author", "is required: who silenced these alerts"));
        }
        if (!Objects.equals(origin, PGHARVEST)) {
            problems.add(new FieldProblem("origin", "only pgharvest's own silences can be created here"));
        }
        return problems;
    }
}
