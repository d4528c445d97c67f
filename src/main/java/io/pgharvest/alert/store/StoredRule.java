package io.pgharvest.alert.store;

import io.pgharvest.alert.rule.AlertRuleBody;
import java.util.Map;

/** An operator's rule as stored, with the rule index at which it last changed. */
public record StoredRule(AlertRuleBody body, long modifyIndex) {

    /** Every operator rule at one rule index. */
    public record Table(long index, Map<String, StoredRule> rules) {
        public Table {
            rules = Map.copyOf(rules);
        }
    }
}
