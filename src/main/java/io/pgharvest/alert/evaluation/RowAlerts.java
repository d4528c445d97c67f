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

    /**
     * Whether {@code rule}'s condition holds for {@code row}, {@code previous} the same series'
     * previous row (or null). A row that has none of the columns and tags the condition names
     * (absent, or SQL NULL) does not match, without evaluating: CEL would only fail on it, and
     * building the variables and the failure for every row of a metric whose columns differ from
     * the rule's (a pgwatch metric of the same name) was most of the evaluation's cost. A row with
     * some of them is evaluated: {@code a > 5 || b > 5} holds on a NULL {@code b}, as CEL says.
     */
    static boolean holds(CompiledRule rule, Measurement.Row row, Source source, String sourceName,
            Map<String, Object> previous) {
        if (!rule.names().isEmpty() && rule.names().stream()
                .noneMatch(name -> row.values().get(name) != null || row.tags().containsKey(name))) {
            return false;
        }
        return rule.holds(ConditionVariables.resolver(row, source, sourceName, rule.rule().paramsFor(sourceName),
                previous));
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
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(seriesKey(rule, source, tags)
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * The key of a series' previous row for conditions that read {@code previous}, and the text an
     * alert's fingerprint hashes (the key itself is not hashed: it is computed for every row of such
     * a rule, and only ever compared in memory).
     */
    static String seriesKey(String rule, String source, Map<String, String> tags) {
        var key = new StringBuilder(rule).append('\0').append(source);
        new TreeMap<>(tags).forEach((k, v) -> key.append('\0').append(k).append('=').append(v));
        return key.toString();
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
