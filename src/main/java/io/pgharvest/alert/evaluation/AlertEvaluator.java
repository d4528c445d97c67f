package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.alert.rule.ConditionVariables;
import io.pgharvest.alert.store.AlertRules;
import io.pgharvest.alert.store.AlertState;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.Source;
import io.pgharvest.support.ChangeNotifier;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates the rules of a metric when its rows arrive, drives the {@link AlertBook}, and hands
 * firing and resolved transitions to every {@link AlertNotifications} (the history, the receivers'
 * outbox) before the new state is written, so a crash in between repeats a hand-over (which
 * the notification side de-duplicates) and never loses one. Each {@link #round} re-sends what
 * fires, reads rule changes of other instances and forgets sources another instance took over.
 * Runs on the {@link AlertFeed}'s thread only; the API reads {@link #current()}.
 */
public final class AlertEvaluator {

    private static final Logger log = LoggerFactory.getLogger(AlertEvaluator.class);
    /** A firing alert counts as resolved this many rounds after its last re-send (as Prometheus: 4). */
    static final int RESEND_ROUNDS = 4;

    private final AlertRules rules;
    private final Function<String, Source> sources;
    private final Predicate<String> evaluatedHere;
    private final AlertBook book;
    private final Supplier<List<AlertNotifications>> notifications;
    private final Clock clock;
    private final Duration round;
    private final ChangeNotifier changes = new ChangeNotifier(1);
    /** Per series of a rule reading {@code previous}: its last row, and the one before (for a test). */
    private final Map<String, Map<String, Object>> previousRows = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Object>> priorRows = new ConcurrentHashMap<>();
    private final Map<String, Measurement> latest = new ConcurrentHashMap<>();
    private volatile List<AlertState> current = List.of();
    private volatile java.util.function.Consumer<List<AlertState>> listener = alerts -> { };
    private long rulesSeen = -1;
    private Map<String, List<CompiledRule>> byMetric = Map.of();

    /**
     * @param sources a source's configuration by name (null for a discovered member)
     * @param evaluatedHere whether this instance collects a source now (holds its lease)
     * @param round how often firing alerts are re-sent and other instances' rule changes read
     */
    AlertEvaluator(AlertRules rules, Function<String, Source> sources, Predicate<String> evaluatedHere,
            AlertBook book, Supplier<List<AlertNotifications>> notifications, Clock clock, Duration round) {
        this.rules = rules;
        this.sources = sources;
        this.evaluatedHere = evaluatedHere;
        this.book = book;
        this.notifications = notifications;
        this.clock = clock;
        this.round = round;
    }

    /** Evaluates every rule of every measurement's metric. */
    void evaluate(List<Measurement> batch) {
        Instant now = clock.instant();
        Map<String, List<CompiledRule>> rulesByMetric = rulesByMetric();
        var transitions = new ArrayList<AlertTransition>();
        for (Measurement measurement : batch) {
            List<CompiledRule> metricRules = rulesByMetric.get(measurement.metric());
            if (metricRules == null) {
                continue;
            }
            latest.put(measurement.source() + "\0" + measurement.metric(), measurement);
            Source source = sources.apply(measurement.source());
            for (CompiledRule rule : metricRules) {
                if (appliesTo(rule, source, measurement.source())) {
                    evaluate(rule, measurement, source, now, transitions);
                }
            }
        }
        settle(transitions);
    }

    private void evaluate(CompiledRule rule, Measurement measurement, Source source, Instant now,
            List<AlertTransition> transitions) {
        String name = measurement.source();
        Set<String> held = new HashSet<>();
        for (Measurement.Row row : measurement.rows()) {
            Map<String, Object> previous = null;
            if (rule.usesPrevious()) {
                String key = RowAlerts.seriesKey(rule.name(), name, row.tags());
                previous = previousRows.put(key, ConditionVariables.columns(row));
                if (previous != null) {
                    priorRows.put(key, previous);
                }
            }
            if (RowAlerts.holds(rule, row, source, name, previous)) {
                Observation seen = RowAlerts.observe(rule, row, source, name);
                held.add(seen.fingerprint());
                book.hold(seen, rule.rule().forDuration(), now, state -> transitions.add(firing(state, now)));
            }
        }
        book.release(name, rule.name(), held, rule.rule().keepFiringFor(), now,
                state -> transitions.add(AlertBook.transition(state, AlertTransition.State.RESOLVED, now)));
    }

    /** Re-sends what fires, resolves alerts of rules that are gone, forgets sources evaluated elsewhere now. */
    void round() {
        Instant now = clock.instant();
        try {
            rules.refresh();
        } catch (RuntimeException e) {
            log.warn("Alert rules could not be re-read; the last ones stay in force: {}", e.getMessage());
        }
        Set<String> active = rulesByMetric().values().stream().flatMap(List::stream).map(CompiledRule::name)
                .collect(Collectors.toSet());
        var transitions = new ArrayList<AlertTransition>();
        boolean evicted = false;
        for (String source : book.sources()) {
            if (!evaluatedHere.test(source)) {
                book.evict(source);
                evicted = true;
                continue;
            }
            book.releaseWhere(source, state -> !active.contains(state.rule()),
                    state -> transitions.add(AlertBook.transition(state, AlertTransition.State.RESOLVED, now)));
        }
        settle(transitions);
        if (evicted) { // another instance shows these now
            publishCurrent();
        }
        Instant endsAt = now.plus(round.multipliedBy(RESEND_ROUNDS));
        List<AlertTransition> firing = AlertBook.firing(book.all()).stream()
                .map(state -> AlertBook.transition(state, AlertTransition.State.FIRING, endsAt)).toList();
        for (AlertNotifications receiver : notifications.get()) {
            try {
                receiver.stillFiring(firing);
            } catch (RuntimeException e) {
                log.error("Re-sending {} firing alerts to {} failed", firing.size(), receiver.getClass().getSimpleName(), e);
            }
        }
    }

    /** Hands the transitions on, then writes the states that changed. */
    private void settle(List<AlertTransition> transitions) {
        for (AlertTransition transition : transitions) {
            for (AlertNotifications receiver : notifications.get()) {
                try {
                    receiver.transition(transition);
                } catch (RuntimeException e) {
                    log.error("Handing {} {} of {} to {} failed", transition.state(), transition.rule(),
                            transition.labels().get("source"), receiver.getClass().getSimpleName(), e);
                }
            }
        }
        if (book.flush() | book.takeLoaded()) {
            publishCurrent();
        }
    }

    private void publishCurrent() {
        current = List.copyOf(book.all());
        changes.advanceTo(changes.index() + 1);
        listener.accept(current);
    }

    private AlertTransition firing(AlertState state, Instant now) {
        return AlertBook.transition(state, AlertTransition.State.FIRING, now.plus(round.multipliedBy(RESEND_ROUNDS)));
    }

    static boolean appliesTo(CompiledRule rule, Source source, String name) {
        var selector = rule.rule().sources();
        if (source == null) { // a discovered member: only a rule for all sources, or one naming it
            return selector.equals(io.pgharvest.alert.rule.SourceSelector.ALL) || selector.names().contains(name);
        }
        return selector.matches(source);
    }

    private Map<String, List<CompiledRule>> rulesByMetric() {
        long index = rules.changes().index();
        if (index != rulesSeen) {
            byMetric = rules.active().stream().collect(Collectors.groupingBy(rule -> rule.rule().metric()));
            rulesSeen = index;
        }
        return byMetric;
    }

    /** The pending and firing alerts of the sources evaluated here, as of the last batch. */
    public List<AlertState> current() {
        return current;
    }

    /** {@code listener} hears the alerts after every change (on the evaluation thread). */
    void onChange(java.util.function.Consumer<List<AlertState>> newListener) {
        this.listener = newListener;
    }

    /** Advanced whenever an alert starts, fires or ends. */
    public ChangeNotifier changes() {
        return changes;
    }

    /**
     * What {@code rule} would fire on now: the alerts the last rows of its metric from every source
     * evaluated here raise, whatever the rule's {@code for}.
     */
    public List<Observation> wouldFire(CompiledRule rule) {
        var found = new ArrayList<Observation>();
        for (Measurement measurement : latest(rule.rule().metric())) {
            Source source = sources.apply(measurement.source());
            if (appliesTo(rule, source, measurement.source())) {
                for (Measurement.Row row : measurement.rows()) {
                    if (holdsNow(rule, measurement, row, source)) {
                        found.add(RowAlerts.observe(rule, row, source, measurement.source()));
                    }
                }
            }
        }
        return found;
    }

    /**
     * The check-up of source {@code name}: every active rule that applies to it, each on the last
     * measurement of its metric from the source (the rows a rule's test reads), with each row's
     * value and state. Empty when the source is neither configured nor measured here.
     */
    public Optional<List<RuleCheck>> checkUp(String name) {
        Source source = sources.apply(name);
        boolean measured = latest.keySet().stream().anyMatch(key -> key.startsWith(name + "\0"));
        if (source == null && !measured) {
            return Optional.empty();
        }
        Map<String, AlertState> alerts = current.stream().filter(a -> a.source().equals(name))
                .collect(Collectors.toMap(AlertState::fingerprint, a -> a, (a, b) -> a));
        var checks = new ArrayList<RuleCheck>();
        for (CompiledRule rule : rules.active()) {
            if (appliesTo(rule, source, name)) {
                Measurement measurement = evaluatedHere.test(name) ? latest.get(name + "\0" + rule.rule().metric()) : null;
                checks.add(RuleCheck.of(rule, name, measurement, alerts,
                        row -> holdsNow(rule, measurement, row, source)));
            }
        }
        return Optional.of(checks);
    }

    private boolean holdsNow(CompiledRule rule, Measurement measurement, Measurement.Row row, Source source) {
        Map<String, Object> previous = priorRows.get(RowAlerts.seriesKey(rule.name(), measurement.source(), row.tags()));
        return RowAlerts.holds(rule, row, source, measurement.source(), previous);
    }

    /** The configuration of source {@code name}; null for a discovered member. */
    Source configured(String name) {
        return sources.apply(name);
    }

    /** Whether this instance evaluates {@code source} now (holds its lease). */
    public boolean evaluatedHere(String source) {
        return evaluatedHere.test(source);
    }

    /** The last measurement of {@code metric} from each source evaluated here (for a rule's test). */
    public List<Measurement> latest(String metric) {
        return latest.values().stream().filter(m -> m.metric().equals(metric) && evaluatedHere.test(m.source()))
                .toList();
    }
}
