package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.Source;
import io.pgharvest.window.ChartedColumns;
import io.pgharvest.window.RecordedPoints;
import io.pgharvest.window.Series;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a rule would have done over the last {@link #SPAN}: its metric's rows rebuilt from the
 * recent window (which keeps one series per charted column and row tags, so a row is the points
 * of one time and one set of tags), evaluated oldest first with the rule's {@code for} and
 * {@code keepFiringFor} as evaluation applies them, on every source evaluated here that the rule
 * applies to. Nothing is notified or stored. A rule reading a column the window does not keep
 * (a text column, a metric it does not chart) cannot be replayed, and the outcome says which.
 */
public final class RuleReplay {

    public static final Duration SPAN = Duration.ofHours(1);
    /** The most alert periods one answer lists (the newest are kept). */
    static final int MAX_PERIODS = 500;

    /**
     * One period an alert would have had.
     *
     * @param pendingSince when its condition started to hold
     * @param firingSince when it would have fired (its for passed), or null if it never did
     * @param endedAt when it would have resolved (or, pending, stopped), or null when still active at the end
     * @param value the value of its last row that held
     */
    public record Period(String source, Map<String, String> labels, String value, String summary,
            Instant pendingSince, Instant firingSince, Instant endedAt) {

        /** {@code firing} or {@code pending} at the end of the replay, else {@code resolved}. */
        @com.fasterxml.jackson.annotation.JsonProperty("state")
        public String state() {
            return endedAt != null ? "resolved" : firingSince != null ? "firing" : "pending";
        }
    }

    /**
     * @param notReplayed why the rows could not be replayed (null when they were)
     * @param periods oldest first
     */
    public record Outcome(Instant from, Instant to, String notReplayed, List<Period> periods) {
    }

    private final RecordedPoints points;
    private final AlertEvaluator evaluator;
    private final Clock clock;

    public RuleReplay(RecordedPoints points, AlertEvaluator evaluator, Clock clock) {
        this.points = points;
        this.evaluator = evaluator;
        this.clock = clock;
    }

    /** The periods {@code rule} would have raised over the last hour. */
    public Outcome replay(CompiledRule rule) {
        Instant to = clock.instant();
        Instant from = to.minus(SPAN);
        String metric = rule.rule().metric();
        Map<String, ?> kept = ChartedColumns.of(metric);
        if (kept == null) {
            return new Outcome(from, to, "the recent window does not keep metric '" + metric
                    + "' (docs/console.md lists what it charts): only its latest rows are tested", List.of());
        }
        var periods = new ArrayList<Period>();
        var missing = new TreeSet<String>();
        for (Measurement latest : evaluator.latest(metric)) {
            String name = latest.source();
            Source source = evaluator.configured(name);
            if (!AlertEvaluator.appliesTo(rule, source, name)) {
                continue;
            }
            Set<String> tags = new HashSet<>();
            latest.rows().forEach(row -> tags.addAll(row.tags().keySet()));
            rule.names().stream().filter(n -> !kept.containsKey(n) && !tags.contains(n)).forEach(missing::add);
            if (missing.isEmpty()) {
                periods.addAll(replay(rule, source, name, rows(points.recorded(name, metric, from.toEpochMilli()))));
            }
        }
        if (!missing.isEmpty()) {
            return new Outcome(from, to, "the recent window does not keep column" + (missing.size() == 1 ? " " : "s ")
                    + missing + " of metric '" + metric + "': only its latest rows are tested", List.of());
        }
        periods.sort(Comparator.comparing(Period::pendingSince).thenComparing(Period::source));
        List<Period> shown = periods.size() > MAX_PERIODS ? periods.subList(periods.size() - MAX_PERIODS, periods.size())
                : periods;
        return new Outcome(from, to, null, List.copyOf(shown));
    }

    /** The rows by measurement time, oldest first: per time, the values of each set of row tags. */
    private static TreeMap<Long, Map<Map<String, String>, Map<String, Object>>> rows(List<Series> series) {
        var rows = new TreeMap<Long, Map<Map<String, String>, Map<String, Object>>>();
        for (Series s : series) {
            for (int i = 0; i < s.times().length; i++) {
                rows.computeIfAbsent(s.times()[i], t -> new LinkedHashMap<>())
                        .computeIfAbsent(s.tags(), t -> new LinkedHashMap<>()).put(s.column(), s.values()[i]);
            }
        }
        return rows;
    }

    /** An alert open during the replay. */
    private static final class Open {
        Observation last;
        final Instant pendingSince;
        Instant firingSince;
        Instant lastHeld;

        Open(Instant since) {
            this.pendingSince = since;
        }

        Period period(Instant endedAt) {
            return new Period(last.source(), last.labels(), last.value(), last.annotations().getOrDefault("summary", ""),
                    pendingSince, firingSince, endedAt);
        }
    }

    /** Evaluates each time's rows in order, with the state machine of {@link AlertBook}: pending, firing, ended. */
    private static List<Period> replay(CompiledRule rule, Source source, String name,
            TreeMap<Long, Map<Map<String, String>, Map<String, Object>>> rows) {
        Duration forDuration = rule.rule().forDuration();
        Duration keepFiringFor = rule.rule().keepFiringFor();
        var open = new LinkedHashMap<String, Open>();
        var previousRows = new HashMap<Map<String, String>, Map<String, Object>>();
        var periods = new ArrayList<Period>();
        rows.forEach((millis, byTags) -> {
            Instant now = Instant.ofEpochMilli(millis);
            var held = new HashSet<String>();
            byTags.forEach((tags, values) -> {
                var row = new Measurement.Row(values, tags);
                Map<String, Object> previous = previousRows.put(tags, values);
                if (RowAlerts.holds(rule, row, source, name, previous)) {
                    Observation seen = RowAlerts.observe(rule, row, source, name);
                    Open alert = open.computeIfAbsent(seen.fingerprint(), f -> new Open(now));
                    alert.last = seen;
                    alert.lastHeld = now;
                    if (alert.firingSince == null && !now.isBefore(alert.pendingSince.plus(forDuration))) {
                        alert.firingSince = now;
                    }
                    held.add(seen.fingerprint());
                }
            });
            open.entrySet().removeIf(entry -> {
                Open alert = entry.getValue();
                boolean ended = !held.contains(entry.getKey())
                        && (alert.firingSince == null || !now.isBefore(alert.lastHeld.plus(keepFiringFor)));
                if (ended) {
                    periods.add(alert.period(now));
                }
                return ended;
            });
        });
        open.values().forEach(alert -> periods.add(alert.period(null)));
        return periods;
    }
}
