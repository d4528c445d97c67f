package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.rule.AlertRule;
import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.alert.store.AlertState;
import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Where one rule stands on one source: its threshold (the parameters with the source's overrides)
 * and, per row of the metric's last measurement from the source, the value the rule reports and
 * its state. {@code state} is the worst of the rows': {@code firing}, {@code pending}, {@code ok},
 * or {@code no-data} when no measurement of the metric has arrived from the source here (not
 * collected, not read yet, or evaluated by another instance).
 *
 * @param readAt when the measurement was taken; null without one
 * @param rowCount the rows of the measurement (at most {@link #MAX_ROWS} are listed, those that are not ok first)
 */
public record RuleCheck(String rule, String metric, String severity, String condition, String forDuration,
        Map<String, Double> params, String state, Instant readAt, int rowCount, List<Row> rows) {

    static final int MAX_ROWS = 50;
    private static final List<String> ORDER = List.of("firing", "pending", "ok");

    public RuleCheck {
        params = Map.copyOf(params);
        rows = List.copyOf(rows);
    }

    /**
     * One row: its tags, the value of the first column the condition names (as alerts report it),
     * and {@code firing}, {@code pending} or {@code ok}. A firing alert whose row is gone (kept
     * firing by {@code keepFiringFor}) is a row too, without a value.
     */
    public record Row(Map<String, String> tags, String value, String state) {
        public Row {
            tags = Map.copyOf(tags);
        }
    }

    static RuleCheck of(CompiledRule compiled, String source, Measurement measurement,
            Map<String, AlertState> alerts, Predicate<Measurement.Row> holds) {
        AlertRule rule = compiled.rule();
        var rows = new ArrayList<Row>();
        Set<String> seen = new HashSet<>();
        if (measurement != null) {
            for (Measurement.Row row : measurement.rows()) {
                String fingerprint = RowAlerts.fingerprint(rule.name(), source, row.tags());
                seen.add(fingerprint);
                AlertState alert = alerts.get(fingerprint);
                Object raw = compiled.valueColumn() == null ? null : row.values().get(compiled.valueColumn());
                String state = alert != null ? status(alert) : holds.test(row) ? "pending" : "ok";
                rows.add(new Row(row.tags(), raw == null ? "" : RowAlerts.text(raw), state));
            }
        }
        alerts.values().stream().filter(a -> a.rule().equals(rule.name()) && !seen.contains(a.fingerprint()))
                .forEach(a -> rows.add(new Row(tagsOf(a), a.value(), status(a))));
        rows.sort(Comparator.comparingInt(r -> ORDER.indexOf(r.state())));
        String state = rows.isEmpty() ? (measurement == null ? "no-data" : "ok") : rows.getFirst().state();
        return new RuleCheck(rule.name(), rule.metric(), rule.severity().label(), rule.condition(),
                io.pgharvest.alert.rule.AlertRuleBody.of(rule).forDuration(), rule.paramsFor(source), state,
                measurement == null ? null : measurement.time(), rows.size(), rows.subList(0, Math.min(MAX_ROWS, rows.size())));
    }

    private static String status(AlertState alert) {
        return alert.status().name().toLowerCase(Locale.ROOT);
    }

    /** An alert's labels without pgharvest's and the rule's own: the row's tags. */
    private static Map<String, String> tagsOf(AlertState alert) {
        var tags = new java.util.TreeMap<>(alert.labels());
        tags.keySet().removeAll(List.of("alertname", "source", "severity"));
        return tags;
    }
}
