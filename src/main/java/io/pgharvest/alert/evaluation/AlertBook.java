package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.store.AlertState;
import io.pgharvest.alert.store.AlertStorage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The state machine of every alert of the sources this instance evaluates, per source as the
 * {@link AlertStorage} keeps it: a source's states are read on its first measurement here (after
 * a restart or a takeover: a firing alert stays firing, nothing is sent again) and written back
 * after each batch that changed one. Pending becomes firing after the rule's {@code for}; firing
 * resolves when the condition stopped holding for longer than {@code keepFiringFor}. Used by the
 * evaluation thread only.
 */
final class AlertBook {

    private final AlertStorage storage;
    private final Map<String, Map<String, AlertState>> bySource = new HashMap<>();
    private final Set<String> changed = new HashSet<>();

    AlertBook(AlertStorage storage) {
        this.storage = storage;
    }

    /** The condition holds for {@code seen} at {@code now}; a firing transition goes to {@code fired}. */
    void hold(Observation seen, Duration forDuration, Instant now, Consumer<AlertState> fired) {
        Map<String, AlertState> states = statesOf(seen.source());
        AlertState state = states.get(seen.fingerprint());
        if (state == null) {
            state = new AlertState(seen.fingerprint(), seen.rule(), seen.source(), AlertState.Status.PENDING,
                    seen.labels(), seen.annotations(), now, null, now, seen.value());
            changed.add(seen.source());
        } else {
            state = state.heldAt(now, seen.value(), seen.annotations());
        }
        if (!state.firing() && !now.isBefore(state.activeSince().plus(forDuration))) {
            state = state.firingFrom(now);
            changed.add(seen.source());
            fired.accept(state);
        }
        states.put(seen.fingerprint(), state);
    }

    /**
     * The condition no longer holds for the alerts of {@code rule} on {@code source} that are not in
     * {@code held}: pending ones end silently, firing ones resolve once {@code keepFiringFor} passed.
     */
    void release(String source, String rule, Set<String> held, Duration keepFiringFor, Instant now,
            Consumer<AlertState> resolved) {
        releaseWhere(source, state -> state.rule().equals(rule) && !held.contains(state.fingerprint())
                && (!state.firing() || !now.isBefore(state.lastTrue().plus(keepFiringFor))), resolved);
    }

    /** Ends the alerts of {@code source} that {@code ended} picks: firing ones go to {@code resolved}. */
    void releaseWhere(String source, Predicate<AlertState> ended, Consumer<AlertState> resolved) {
        Map<String, AlertState> states = statesOf(source);
        var iterator = states.values().iterator();
        while (iterator.hasNext()) {
            AlertState state = iterator.next();
            if (ended.test(state)) {
                iterator.remove();
                changed.add(source);
                if (state.firing()) {
                    resolved.accept(state);
                }
            }
        }
    }

    /** Writes the states of every source changed since the last flush; true if there was one. */
    boolean flush() {
        if (changed.isEmpty()) {
            return false;
        }
        for (String source : changed) {
            storage.writeStates(source, statesOf(source).values());
        }
        changed.clear();
        return true;
    }

    /** Forgets a source another instance evaluates now (its states stay stored for it). */
    void evict(String source) {
        if (!changed.contains(source)) {
            bySource.remove(source);
        }
    }

    Set<String> sources() {
        return Set.copyOf(bySource.keySet());
    }

    /** Every pending and firing alert held in memory. */
    List<AlertState> all() {
        var all = new ArrayList<AlertState>();
        bySource.values().forEach(states -> all.addAll(states.values()));
        return all;
    }

    /** A transition of {@code state}: firing (until {@code endsAt}) or resolved at {@code at}. */
    static AlertTransition transition(AlertState state, AlertTransition.State kind, Instant endsAt) {
        return new AlertTransition(state.fingerprint(), kind, state.labels(), state.annotations(), state.firingSince(),
                endsAt, state.value());
    }

    private Map<String, AlertState> statesOf(String source) {
        return bySource.computeIfAbsent(source, s -> new LinkedHashMap<>(storage.readStates(s)));
    }

    static Collection<AlertState> firing(Collection<AlertState> states) {
        return states.stream().filter(AlertState::firing).toList();
    }
}
