package io.pgharvest.alert.store;

import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.alert.rule.InvalidRuleException;
import io.pgharvest.alert.rule.MetricLookup;
import io.pgharvest.alert.rule.RuleCompiler;
import io.pgharvest.store.WriteCondition;
import io.pgharvest.support.ChangeNotifier;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules alerting evaluates: the built-in pack merged with the operator's rules (which win on
 * equal names, as overrides), kept in an {@link AlertStorage}. Every write is compiled first (a
 * problem rejects it, changing nothing) and moves the rule index, which list requests block on.
 * Rules written by another instance are read when {@link #refresh()} sees the index moved.
 */
public final class AlertRules {

    private static final Logger log = LoggerFactory.getLogger(AlertRules.class);
    private static final int WRITE_ATTEMPTS = 5;

    private final AlertStorage storage;
    private final RuleCompiler compiler;
    private final MetricLookup metrics;
    private final Map<String, RuleEntry> builtIns;
    private final ChangeNotifier changes;
    private volatile Map<String, RuleEntry> rules;
    private volatile long index;

    /** The result of a create or replace. */
    public record Written(RuleEntry entry, boolean created) {
    }

    public AlertRules(AlertStorage storage, RuleCompiler compiler, MetricLookup metrics, MetricLookup builtInMetrics,
            Map<String, AlertRuleBody> builtInRules) {
        this.storage = storage;
        this.compiler = compiler;
        this.metrics = metrics;
        var compiled = new TreeMap<String, RuleEntry>();
        builtInRules.forEach((name, body) -> compiled.put(name, new RuleEntry(body,
                compiler.compile(body, builtInMetrics), List.of(), RuleEntry.Origin.BUILT_IN, 0)));
        this.builtIns = Collections.unmodifiableMap(compiled);
        StoredRule.Table table = storage.readRules();
        this.changes = new ChangeNotifier(table.index());
        publish(table);
    }

    /** Every rule by name, built-in and the operator's. */
    public Map<String, RuleEntry> all() {
        return rules;
    }

    /** The rules to evaluate: compiled and enabled. */
    public List<CompiledRule> active() {
        return rules.values().stream().map(RuleEntry::compiled)
                .filter(rule -> rule != null && rule.rule().enabled()).toList();
    }

    public Optional<RuleEntry> get(String name) {
        return Optional.ofNullable(rules.get(name));
    }

    /** Advanced at every rule change, by any instance (seen at the next {@link #refresh()}). */
    public ChangeNotifier changes() {
        return changes;
    }

    /** Reads the operator's rules again when another instance changed them. */
    public void refresh() {
        if (storage.rulesIndex() != index) {
            synchronized (this) {
                publish(storage.readRules());
            }
        }
    }

    /**
     * Adds an operator rule.
     *
     * @throws InvalidRuleException naming every problem
     * @throws RuleChangeException (duplicate) if a rule of that name exists, built in or not
     */
    public synchronized Written create(AlertRuleBody body) {
        compiler.compile(body, metrics);
        if (rules.containsKey(body.name())) {
            throw new RuleChangeException(RuleChangeException.Reason.DUPLICATE, "an alert rule named '" + body.name()
                    + "' exists" + (builtIns.containsKey(body.name()) ? " (built in: PUT overrides it)" : ""));
        }
        return put(body);
    }

    /**
     * {@code body} checked as a save would check it, and nothing saved: what a draft's test runs.
     *
     * @throws InvalidRuleException naming every problem
     */
    public CompiledRule compileDraft(AlertRuleBody body) {
        return compiler.compile(body, metrics);
    }

    /** Creates, replaces or overrides the rule of {@code body}'s name. @throws InvalidRuleException naming every problem */
    public Written put(AlertRuleBody body) {
        return put(body, WriteCondition.any());
    }

    /**
     * {@link #put(AlertRuleBody)} if the rule is still at the modify index {@code condition} expects
     * (a built-in rule not overridden is at 0, as a rule that does not exist).
     *
     * @throws InvalidRuleException naming every problem
     * @throws WriteCondition.StaleIndexException when it changed since, changing nothing
     */
    public synchronized Written put(AlertRuleBody body, WriteCondition condition) {
        compiler.compile(body, metrics);
        boolean created = !rules.containsKey(body.name());
        write(body.name(), body, condition);
        return new Written(rules.get(body.name()), created);
    }

    /**
     * Deletes an operator rule or the override of a built-in one (which applies again), if it is
     * still at the modify index {@code condition} expects.
     *
     * @return the new rule index
     * @throws WriteCondition.StaleIndexException when it changed since, changing nothing
     */
    public synchronized long delete(String name, WriteCondition condition) {
        RuleEntry entry = rules.get(name);
        if (entry == null) {
            throw new RuleChangeException(RuleChangeException.Reason.NOT_FOUND, "no alert rule named '" + name + "'");
        }
        if (entry.origin() == RuleEntry.Origin.BUILT_IN) {
            throw new RuleChangeException(RuleChangeException.Reason.BUILT_IN, "alert rule '" + name
                    + "' is built in: switch it off with a PUT of \"enabled\": false instead");
        }
        write(name, null, condition);
        return index;
    }

    /**
     * Writes against the rules as last read: the storage's compare-and-set on the rule index fails
     * when another instance wrote since, and the condition is checked again on what it wrote, so
     * the check and the write are one atomic step across the fleet.
     */
    private void write(String name, AlertRuleBody body, WriteCondition condition) {
        for (int attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
            RuleEntry current = rules.get(name);
            condition.check("alert rule", name, current == null ? 0 : current.modifyIndex());
            long expected = index;
            long next = expected + 1;
            if (storage.writeRule(expected, next, name, body == null ? null : new StoredRule(body, next))) {
                var table = new TreeMap<>(storage.readRules().rules());
                publish(new StoredRule.Table(next, table));
                return;
            }
            publish(storage.readRules());
        }
        throw new IllegalStateException("the alert rules kept changing under this write; nothing was changed, try again");
    }

    private void publish(StoredRule.Table table) {
        var merged = new TreeMap<>(builtIns);
        table.rules().forEach((name, stored) -> merged.put(name, userEntry(name, stored)));
        rules = Collections.unmodifiableMap(merged);
        index = table.index();
        changes.advanceTo(table.index());
    }

    private RuleEntry userEntry(String name, StoredRule stored) {
        RuleEntry.Origin origin = builtIns.containsKey(name) ? RuleEntry.Origin.OVERRIDE : RuleEntry.Origin.OWN;
        try {
            return new RuleEntry(stored.body(), compiler.compile(stored.body(), metrics), List.of(), origin,
                    stored.modifyIndex());
        } catch (InvalidRuleException e) {
            log.warn("Alert rule {} is not evaluated: {}", name, e.getMessage());
            return new RuleEntry(stored.body(), null, e.problems(), origin, stored.modifyIndex());
        }
    }
}
