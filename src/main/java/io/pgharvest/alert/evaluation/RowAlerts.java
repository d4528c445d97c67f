package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.alert.rule.ConditionVariables;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.Source;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one row makes of a rule: whether its condition holds and, if so, the alert it stands for
 * (labels, rendered annotations, value, fingerprint).
 */
final class RowAlerts {

    private RowAlerts() {
    }

    /** The variables of {@code row} for {@code rule}, {@code previous} the same series' previous row (or null). */
    static Map<String, Object> variables(CompiledRule rule, Measurement.Row row, Source source, String sourceName,
            Map<String, Object> previous) {
        return ConditionVariables.of(row, source, sourceName, rule.rule().paramsFor(sourceName), previous);
    }

    /** The alert {@code row} raises under {@code rule}; call when the condition holds. */
    static Observation observe(CompiledRule rule, Measurement.Row row, Source source, String sourceName) {
        var labels = new TreeMap<String, String>(row.tags());
        labels.putAll(rule.rule().labels());
        labels.put("alertname", rule.name());
        labels.put("source", sourceName);
        labels.put("severity", rule.rule().severity().label());
        Object raw = rule.valueColumn() == null ? null : row.values().get(rule.valueColumn());
        String value = raw == null ? "" : text(raw);
        Map<String, String> fields = fields(rule, row, source, sourceName, value);
        var annotations = new HashMap<String, String>();
        annotations.put("summary", rule.summary().render(fields));
        annotations.put("description", rule.description().render(fields));
        if (!rule.rule().runbook().isEmpty()) {
            annotations.put("runbook", rule.rule().runbook());
        }
        return new Observation(fingerprint(rule.name(), sourceName, row.tags()), rule.name(), sourceName,
                labels, annotations, value);
    }

    /** Stable identity of an alert: the rule, the source and the row's tags. */
    static String fingerprint(String rule, String source, Map<String, String> tags) {
        var text = new StringBuilder(rule).append('\0').append(source);
        new TreeMap<>(tags).forEach((k, v) -> text.append('\0').append(k).append('=').append(v));
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The key of a series' previous row for conditions that read {@code previous}. */
    static String seriesKey(String rule, String source, Map<String, String> tags) {
        return fingerprint(rule, source, tags);
    }

    private static Map<String, String> fields(CompiledRule rule, Measurement.Row row, Source source, String sourceName,
            String value) {
        var fields = new HashMap<String, String>();
        row.values().forEach((column, v) -> fields.put(column, v == null ? "" : text(v)));
        fields.putAll(row.tags());
        fields.put("value", value);
        fields.put("source", sourceName);
        fields.put("source.name", sourceName);
        if (source != null) {
            fields.put("source.group", source.group());
            fields.put("source.kind", source.kind().label());
            source.tags().forEach((k, v) -> fields.put("source.tags." + k, v));
        }
        rule.rule().paramsFor(sourceName).forEach((k, v) -> fields.put("params." + k, text(v)));
        return fields;
    }

    /** A value as messages show it: whole numbers without a fraction, others rounded to 3 places. */
    static String text(Object value) {
        if (value instanceof Number number) {
            double d = number.doubleValue();
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                return Long.toString((long) d);
            }
            return java.math.BigDecimal.valueOf(d).setScale(3, java.math.RoundingMode.HALF_UP).stripTrailingZeros()
                    .toPlainString();
        }
        return String.valueOf(value);
    }
}
