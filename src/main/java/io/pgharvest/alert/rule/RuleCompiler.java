package io.pgharvest.alert.rule;

import io.pgharvest.api.BlockingQuery;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.SourceKind;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns a rule as written ({@link AlertRuleBody}) into a {@link CompiledRule}, checking every
 * field once, when the rule is saved (and again when a store is loaded): every problem of every
 * field is reported together, a CEL error with its line and column.
 */
public final class RuleCompiler {

    static final String SOURCE = "source";
    static final String PARAMS = "params";
    static final String PREVIOUS = "previous";
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,99}");
    private static final Pattern LABEL = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,99}");
    private static final Set<String> OWN_LABELS = Set.of("alertname", "source", "severity");
    private static final Set<String> SOURCE_FIELDS = Set.of("source", "source.name", "source.group", "source.kind");

    private final ConditionCompiler conditions;

    public RuleCompiler(long costLimit) {
        this.conditions = new ConditionCompiler(costLimit);
    }

    /** @throws InvalidRuleException naming every offending field; nothing is compiled */
    public CompiledRule compile(AlertRuleBody body, MetricLookup metrics) {
        var problems = new ArrayList<FieldProblem>();
        String name = body.name();
        if (name == null || !NAME.matcher(name).matches()) {
            problems.add(new FieldProblem("name", "is required: a letter, then up to 99 letters, digits, '_', '.' or '-'"));
        }
        Optional<Set<String>> columns = Optional.empty();
        if (body.metric() == null || body.metric().isBlank()) {
            problems.add(new FieldProblem("metric", "is required: the metric whose rows the condition reads"));
        } else if (!metrics.exists(body.metric())) {
            problems.add(new FieldProblem("metric", "unknown metric '" + body.metric() + "'"));
        } else {
            columns = metrics.columns(body.metric());
        }
        Duration forDuration = duration(body.forDuration(), "for", problems);
        Duration keepFiringFor = duration(body.keepFiringFor(), "keepFiringFor", problems);
        Severity severity = severity(body.severity(), problems);
        Map<String, Double> params = params(body, problems);
        labels(body.labels(), problems);
        runbook(body.runbook(), problems);
        sources(body.sources(), problems);
        ConditionCompiler.Result condition = null;
        if (body.condition() == null || body.condition().isBlank()) {
            problems.add(new FieldProblem("condition", "is required: a CEL expression over the metric's row"));
        } else if (body.metric() == null || metrics.exists(body.metric())) {
            condition = conditions.compile(body.condition(), body.metric(), columns, params.keySet(), problems);
        }
        Set<String> known = columns.orElse(null);
        templates(body, known, params.keySet(), problems);
        if (!problems.isEmpty()) {
            throw new InvalidRuleException(name == null ? "" : name, problems);
        }
        var s = body.sources();
        var rule = new AlertRule(name, body.metric(), body.condition(), forDuration, keepFiringFor, severity,
                body.labels(), body.summary(), body.description(), body.runbook(),
                s == null ? SourceSelector.ALL : new SourceSelector(s.group(), s.kind(), s.tags(), s.names()),
                params, body.overrides(), body.enabled() == null || body.enabled());
        return new CompiledRule(rule, condition.program(), condition.valueColumn(), condition.usesPrevious(),
                condition.names(), AlertTemplate.of(rule.summary()), AlertTemplate.of(rule.description()));
    }

    private static Duration duration(String text, String field, List<FieldProblem> problems) {
        if (text == null) {
            return Duration.ZERO;
        }
        if (!BlockingQuery.isDuration(text)) {
            problems.add(new FieldProblem(field, "must be a duration such as 0s, 30s, 5m, 1h or 1m30s"));
            return Duration.ZERO;
        }
        return BlockingQuery.parseDuration(text);
    }

    private static Severity severity(String text, List<FieldProblem> problems) {
        if (text == null) {
            return Severity.WARNING;
        }
        return Severity.of(text).orElseGet(() -> {
            problems.add(new FieldProblem("severity", "must be warning or critical"));
            return Severity.WARNING;
        });
    }

    private static Map<String, Double> params(AlertRuleBody body, List<FieldProblem> problems) {
        Map<String, Double> params = body.params() == null ? Map.of() : body.params();
        params.forEach((key, value) -> {
            if (!LABEL.matcher(key).matches()) {
                problems.add(new FieldProblem("params." + key, "must be a name of letters, digits and '_'"));
            } else if (value == null || !Double.isFinite(value)) {
                problems.add(new FieldProblem("params." + key, "must be a finite number"));
            }
        });
        if (body.overrides() != null) {
            body.overrides().forEach((source, values) -> (values == null ? Map.<String, Double>of() : values)
                    .forEach((key, value) -> {
                        if (!params.containsKey(key)) {
                            problems.add(new FieldProblem("overrides." + source + "." + key,
                                    "overrides no parameter of the rule; params has " + params.keySet()));
                        } else if (value == null || !Double.isFinite(value)) {
                            problems.add(new FieldProblem("overrides." + source + "." + key, "must be a finite number"));
                        }
                    }));
        }
        return params;
    }

    private static void labels(Map<String, String> labels, List<FieldProblem> problems) {
        if (labels == null) {
            return;
        }
        labels.forEach((key, value) -> {
            if (!LABEL.matcher(key).matches()) {
                problems.add(new FieldProblem("labels." + key, "must be a label name of letters, digits and '_'"));
            } else if (OWN_LABELS.contains(key)) {
                problems.add(new FieldProblem("labels." + key, "is set by pgharvest (alertname, source, severity)"));
            } else if (value == null) {
                problems.add(new FieldProblem("labels." + key, "must be text"));
            }
        });
    }

    private static void runbook(String runbook, List<FieldProblem> problems) {
        if (runbook == null || runbook.isEmpty()) {
            return;
        }
        try {
            String scheme = URI.create(runbook).getScheme();
            if (!"https".equals(scheme) && !"http".equals(scheme)) {
                problems.add(new FieldProblem("runbook", "must be an http or https link"));
            }
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem("runbook", "must be an http or https link"));
        }
    }

    private static void sources(AlertRuleBody.Sources sources, List<FieldProblem> problems) {
        if (sources == null || sources.kind() == null) {
            return;
        }
        if (SourceKind.values().stream().noneMatch(kind -> kind.label().equals(sources.kind()))) {
            problems.add(new FieldProblem("sources.kind", "unknown kind '" + sources.kind() + "'; kinds are "
                    + SourceKind.values().stream().map(SourceKind::label).toList()));
        }
    }

    private static void templates(AlertRuleBody body, Set<String> columns, Set<String> params,
            List<FieldProblem> problems) {
        java.util.function.Predicate<String> known = field -> field.equals("value") || SOURCE_FIELDS.contains(field)
                || field.startsWith("source.tags.")
                || (field.startsWith(PARAMS + ".") && params.contains(field.substring(PARAMS.length() + 1)))
                || (!field.contains(".") && (columns == null || columns.contains(field)));
        for (var template : List.of(Map.entry("summary", String.valueOf(body.summary())),
                Map.entry("description", String.valueOf(body.description())))) {
            for (String unknown : AlertTemplate.of(template.getValue()).unknownFields(known)) {
                problems.add(new FieldProblem(template.getKey(), "names '" + unknown + "', which the rows of metric '"
                        + body.metric() + "' do not have; a template may name the metric's columns and tags, value,"
                        + " source, source.group, source.kind, source.tags.NAME and params.NAME"));
            }
        }
    }
}
