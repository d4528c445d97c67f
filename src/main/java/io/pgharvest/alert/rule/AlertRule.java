package io.pgharvest.alert.rule;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One alert rule, validated ({@link RuleCompiler} makes these from {@link AlertRuleBody}, the
 * form the API and the stores carry).
 *
 * @param name the rule's name, label {@code alertname}
 * @param metric the metric whose rows the condition reads (its storage name)
 * @param condition a CEL expression over one row: its columns and tags by name, {@code source}
 *     (name, group, kind, tags) and {@code params}
 * @param forDuration how long the condition must hold before the alert fires (pending until then)
 * @param keepFiringFor how long a firing alert keeps firing after the condition stopped holding
 * @param labels added to every alert of the rule
 * @param summary template, see {@link AlertTemplate}
 * @param description template
 * @param runbook a link, as given
 * @param params named thresholds the condition refers to as {@code params.name}
 * @param overrides per source name, parameters that replace {@code params} for that source
 * @param enabled false keeps the rule (a built-in one switched off by an override) without evaluating it
 */
public record AlertRule(String name, String metric, String condition, Duration forDuration, Duration keepFiringFor,
        Severity severity, Map<String, String> labels, String summary, String description, String runbook,
        SourceSelector sources, Map<String, Double> params, Map<String, Map<String, Double>> overrides,
        boolean enabled) {

    public AlertRule {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(condition, "condition");
        forDuration = forDuration == null ? Duration.ZERO : forDuration;
        keepFiringFor = keepFiringFor == null ? Duration.ZERO : keepFiringFor;
        Objects.requireNonNull(severity, "severity");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        summary = summary == null ? "" : summary;
        description = description == null ? "" : description;
        runbook = runbook == null ? "" : runbook;
        sources = sources == null ? SourceSelector.ALL : sources;
        params = params == null ? Map.of() : Map.copyOf(params);
        var copy = new HashMap<String, Map<String, Double>>();
        if (overrides != null) {
            overrides.forEach((source, values) -> copy.put(source, Map.copyOf(values)));
        }
        overrides = Map.copyOf(copy);
    }

    /** The parameters for {@code source}: the rule's, with that source's overrides on top. */
    public Map<String, Double> paramsFor(String source) {
        Map<String, Double> own = overrides.get(source);
        if (own == null) {
            return params;
        }
        var merged = new HashMap<>(params);
        merged.putAll(own);
        return merged;
    }
}
