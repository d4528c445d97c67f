package io.pgharvest.alert.store;

import io.pgharvest.alert.AlertTransition;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where alerting keeps what must survive a restart and be shared by a fleet: the operator's rules
 * (beside the configuration store: files in the data directory, or the configuration database
 * when {@code pgharvest.store.url} is set), every alert's state, and the history of transitions.
 * Every write is durable when the call returns; a failure throws and changes nothing.
 */
public interface AlertStorage extends AutoCloseable {

    /** The operator's rules and the rule index, as last written by any instance. */
    StoredRule.Table readRules();

    /** The rule index as last written by any instance (cheap: read every evaluation round). */
    long rulesIndex();

    /**
     * Writes {@code rule} under {@code name} ({@code null}: deletes it) and moves the rule index from
     * {@code expected} to {@code next}.
     *
     * @return false, changing nothing, when the stored index is no longer {@code expected} (another
     *     instance wrote first: re-read and try again)
     */
    boolean writeRule(long expected, long next, String name, StoredRule rule);

    /** The states of {@code source}'s alerts, by fingerprint. */
    Map<String, AlertState> readStates(String source);

    /** Replaces the states of {@code source}'s alerts by {@code states}. */
    void writeStates(String source, Collection<AlertState> states);

    /** Appends a transition to the history. */
    void appendHistory(AlertTransition transition);

    /** Transitions at or after {@code from} and before {@code to}, oldest first, at most {@code limit}. */
    List<AlertTransition> readHistory(Instant from, Instant to, int limit);

    @Override
    void close();
}
