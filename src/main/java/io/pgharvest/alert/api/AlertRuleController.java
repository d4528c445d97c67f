package io.pgharvest.alert.api;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.alert.evaluation.AlertEvaluator;
import io.pgharvest.alert.evaluation.Observation;
import io.pgharvest.alert.evaluation.RuleReplay;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.store.AlertRules;
import io.pgharvest.alert.store.RuleChangeException;
import io.pgharvest.alert.store.RuleEntry;
import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.CheckAndSet;
import io.pgharvest.model.FieldProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Alert rules: the built-in pack plus the operator's own, which may override or switch off built-in ones. */
@RestController
@RequestMapping(AlertRuleController.PATH)
@Tag(name = "Alert rules", description = "Rules as data: a CEL condition over one metric's rows, for, keepFiringFor,"
        + " severity, templates, sources and per-source parameters (docs/alerts.md). Built-in rules can be"
        + " overridden (PUT) or switched off (\"enabled\": false); deleting the override restores them.")
class AlertRuleController {

    static final String PATH = "/api/v1/alert-rules";

    private final AlertRules rules;
    private final AlertEvaluator evaluator;
    private final RuleReplay replay;

    AlertRuleController(AlertRules rules, AlertEvaluator evaluator, RuleReplay replay) {
        this.rules = rules;
        this.evaluator = evaluator;
        this.replay = replay;
    }

    @GetMapping
    @Operation(summary = "List", description = "Every rule by name. A blocking query when index is given.")
    ResponseEntity<List<RuleResponse>> list(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return BlockingQuery.parse(index, wait).answer(rules.changes(),
                () -> rules.all().values().stream().map(RuleResponse::of).toList());
    }

    @PostMapping
    @Operation(summary = "Create", description = "400 names every offending field (a CEL error with its position);"
            + " 409 when a rule of that name exists (PUT overrides a built-in one).")
    ResponseEntity<RuleResponse> create(@RequestBody AlertRuleBody body) {
        AlertRules.Written written = rules.create(body);
        return ResponseEntity.created(URI.create(PATH + "/" + written.entry().name()))
                .header(INDEX_HEADER, Long.toString(rules.changes().index())).body(RuleResponse.of(written.entry()));
    }

    @GetMapping("/{name}")
    @Operation(summary = "Get one")
    ResponseEntity<RuleResponse> get(@PathVariable String name) {
        RuleEntry entry = rules.get(name).orElseThrow(() -> notFound(name));
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(rules.changes().index()))
                .body(RuleResponse.of(entry));
    }

    @PutMapping("/{name}")
    @Operation(summary = "Create, replace or override", description = "On a built-in name this creates the override."
            + " With cas: only if the rule is still at that modifyIndex (409 stale-index otherwise).")
    ResponseEntity<RuleResponse> put(@PathVariable String name,
            @Parameter(description = CheckAndSet.PARAM_DESCRIPTION) @RequestParam(required = false) String cas,
            @RequestBody AlertRuleBody body) {
        var condition = CheckAndSet.parse(cas);
        if (body.name() != null && !Objects.equals(body.name(), name)) {
            throw new io.pgharvest.alert.rule.InvalidRuleException(name, List.of(new FieldProblem("name",
                    "differs from the name in the path ('" + name + "'); leave it out or make them equal")));
        }
        AlertRules.Written written = rules.put(body.named(name), condition);
        return ResponseEntity.status(written.created() ? HttpStatus.CREATED : HttpStatus.OK)
                .header(INDEX_HEADER, Long.toString(rules.changes().index())).body(RuleResponse.of(written.entry()));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete", description = "Deleting an override restores the built-in rule; a built-in rule"
            + " that is not overridden cannot be deleted (409): switch it off instead. With cas: only if the rule"
            + " is still at that modifyIndex (409 stale-index otherwise).")
    ResponseEntity<Void> delete(@PathVariable String name,
            @Parameter(description = CheckAndSet.PARAM_DESCRIPTION) @RequestParam(required = false) String cas) {
        long index = rules.delete(name, CheckAndSet.parse(cas));
        return ResponseEntity.noContent().header(INDEX_HEADER, Long.toString(index)).build();
    }

    /** What one test found: an alert the rule would raise now. */
    record TestAlert(String source, java.util.Map<String, String> labels, String value, String summary) {
        static TestAlert of(Observation o) {
            return new TestAlert(o.source(), o.labels(), o.value(), o.annotations().getOrDefault("summary", ""));
        }
    }

    /**
     * A test's answer: {@code now}, what the latest rows raise whatever the rule's for; and the last
     * hour replayed from the recent window with for and keepFiringFor ({@code periods}: each alert's
     * pending, firing and end), or {@code notReplayed} saying why it could not be.
     */
    record TestAnswer(List<TestAlert> now, java.time.Instant from, java.time.Instant to, String notReplayed,
            List<RuleReplay.Period> periods) {
    }

    @PostMapping("/{name}/test")
    @Operation(summary = "Test", description = "What the rule raises on the last rows of its metric from every"
            + " source evaluated here, now, whatever its for (a rule reading previous compares the last two"
            + " measurements); and what it would have raised over the last hour, replayed from the recent window's"
            + " rows with its for and keepFiringFor: each alert's pendingSince, firingSince and endedAt.")
    ResponseEntity<TestAnswer> test(@PathVariable String name) {
        RuleEntry entry = rules.get(name).orElseThrow(() -> notFound(name));
        if (entry.compiled() == null) {
            throw new io.pgharvest.alert.rule.InvalidRuleException(name, entry.problems());
        }
        return tested(entry.compiled());
    }

    @PostMapping("/test")
    @Operation(summary = "Test a draft", description = "A rule not saved (the editor's draft) checked as a save"
            + " would check it (400 naming every offending field, nothing saved), then tested as a saved rule is:"
            + " now on the last rows of its metric, and replayed over the last hour.")
    ResponseEntity<TestAnswer> testDraft(@RequestBody AlertRuleBody body) {
        return tested(rules.compileDraft(body));
    }

    private ResponseEntity<TestAnswer> tested(io.pgharvest.alert.rule.CompiledRule rule) {
        List<TestAlert> now = evaluator.wouldFire(rule).stream().map(TestAlert::of).toList();
        RuleReplay.Outcome hour = replay.replay(rule);
        return ResponseEntity.ok(new TestAnswer(now, hour.from(), hour.to(), hour.notReplayed(), hour.periods()));
    }

    private static RuleChangeException notFound(String name) {
        return new RuleChangeException(RuleChangeException.Reason.NOT_FOUND, "no alert rule named '" + name + "'");
    }
}
