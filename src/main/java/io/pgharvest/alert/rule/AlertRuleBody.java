package io.pgharvest.alert.rule;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A rule as the API receives it and the stores keep it: durations and severity as text, parsed
 * and checked once by {@link RuleCompiler}. {@code for} is spelled {@code forDuration} here only
 * because it is a Java keyword.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AlertRuleBody(String name, String metric, String condition,
        @JsonProperty("for") String forDuration, String keepFiringFor, String severity,
        Map<String, String> labels, String summary, String description, String runbook, Sources sources,
        Map<String, Double> params, Map<String, Map<String, Double>> overrides, Boolean enabled) {

    /** The source selector as written; see {@link SourceSelector}. */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record Sources(String group, String kind, Map<String, String> tags, List<String> names) {
    }

    /** This body with {@code name} as its name (a PUT names the rule in its path). */
    public AlertRuleBody named(String newName) {
        return new AlertRuleBody(newName, metric, condition, forDuration, keepFiringFor, severity, labels, summary,
                description, runbook, sources, params, overrides, enabled);
    }

    /** The body that reads back as {@code rule}. */
    public static AlertRuleBody of(AlertRule rule) {
        SourceSelector s = rule.sources();
        return new AlertRuleBody(rule.name(), rule.metric(), rule.condition(), text(rule.forDuration()),
                text(rule.keepFiringFor()), rule.severity().label(), rule.labels(), rule.summary(),
                rule.description(), rule.runbook(), new Sources(s.group(), s.kind(), s.tags(), s.names()),
                rule.params(), rule.overrides(), rule.enabled());
    }

    /** A duration in the API's form: 90s, 5m, 1h, 250ms. */
    static String text(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.toMillisPart() != 0 || duration.getNano() % 1_000_000 != 0) {
            return duration.toMillis() + "ms";
        }
        long seconds = duration.toSeconds();
        if (seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }
}
