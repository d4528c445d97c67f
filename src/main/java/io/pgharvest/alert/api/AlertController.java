package io.pgharvest.alert.api;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.evaluation.AlertEvaluator;
import io.pgharvest.alert.notify.KnownSilences;
import io.pgharvest.alert.store.HistoryNotifications;
import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The alerts pending and firing now, and the history of firings and resolutions. */
@RestController
@RequestMapping("/api/v1/alerts")
@Tag(name = "Alerts", description = "Alerts pending and firing on the sources this instance evaluates, and the"
        + " history of every firing and resolution.")
class AlertController {

    static final int HISTORY_LIMIT = 10_000;
    private static final Duration DEFAULT_HISTORY = Duration.ofDays(1);

    private final AlertEvaluator evaluator;
    private final HistoryNotifications history;
    private final KnownSilences silences;

    AlertController(AlertEvaluator evaluator, HistoryNotifications history, KnownSilences silences) {
        this.evaluator = evaluator;
        this.history = history;
        this.silences = silences;
        // A silence created or ended changes an alert's silencedBy: answer the blocking queries then too.
        silences.onChange(() -> evaluator.changes().advanceTo(evaluator.changes().index() + 1));
    }

    @GetMapping
    @Operation(summary = "Pending and firing alerts", description = "Firing first, then by rule and source,"
            + " each with the silences that hold it (silencedBy). A blocking query when index is given: answers"
            + " when an alert starts, fires or ends, or a silence is created or deleted.")
    ResponseEntity<List<AlertResponse>> list(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return BlockingQuery.parse(index, wait).answer(evaluator.changes(), () -> answer(evaluator.current()));
    }

    private List<AlertResponse> answer(List<io.pgharvest.alert.store.AlertState> alerts) {
        KnownSilences.Snapshot known = silences.snapshot();
        Instant now = Instant.now();
        return alerts.stream().map(alert -> AlertResponse.of(alert, known, now))
                .sorted(Comparator.comparing((AlertResponse a) -> !a.state().equals("firing"))
                        .thenComparing(AlertResponse::alertname).thenComparing(AlertResponse::source))
                .toList();
    }

    @GetMapping("/history")
    @Operation(summary = "History", description = "Firings and resolutions from 'from' (default: a day ago) to 'to'"
            + " (default: now), ISO-8601 instants, oldest first, at most " + HISTORY_LIMIT + ".")
    List<HistoryEntry> history(@RequestParam(required = false) String from,
            @RequestParam(required = false) String to) {
        var problems = new ArrayList<FieldProblem>();
        Instant now = Instant.now();
        Instant end = instant(to, "to", now, problems);
        Instant start = instant(from, "from", end.minus(DEFAULT_HISTORY), problems);
        if (problems.isEmpty() && !start.isBefore(end)) {
            problems.add(new FieldProblem("from", "must be before to"));
        }
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
        return history.between(start, end, HISTORY_LIMIT).stream().map(HistoryEntry::of).toList();
    }

    /** One firing ({@code state} firing, from {@code startsAt}) or resolution (at {@code endsAt}) of an alert. */
    record HistoryEntry(String fingerprint, String alertname, String state, java.util.Map<String, String> labels,
            java.util.Map<String, String> annotations, Instant startsAt, Instant endsAt, String value) {
        static HistoryEntry of(AlertTransition t) {
            return new HistoryEntry(t.fingerprint(), t.rule(), t.state().name().toLowerCase(java.util.Locale.ROOT),
                    t.labels(), t.annotations(), t.startsAt(), t.endsAt(), t.value());
        }
    }

    private static Instant instant(String text, String field, Instant fallback, List<FieldProblem> problems) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return Instant.parse(text.trim());
        } catch (DateTimeParseException e) {
            problems.add(new FieldProblem(field, "must be an ISO-8601 instant such as 2026-01-31T12:00:00Z"));
            return fallback;
        }
    }
}
