package io.pgharvest.reaper.isolation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The suspects of one source, and the binary search for the culprits among them, which goes on
 * across ticks.
 *
 * <p>A pipeline that fails does not say which of its statements failed, so its metrics form one
 * <em>group</em> known to fail: at least one of them is a culprit. Such a group is never run
 * whole again; it is halved. Trials are taken one at a time ({@link #nextTrial}), from the oldest
 * group that has suspects due and not yet run alone in this tick:
 * <ul>
 *   <li>a group known to fail offers its first half; if that half succeeds, its metrics are
 *       cleared (delivered, back to the pipeline) and the rest is still known to fail, so it is
 *       halved in turn;
 *   <li>a half that fails becomes a group of its own, known to fail, queued behind the others;
 *       the rest of its group is then not known to fail (the culprit may have been in the half)
 *       and is tried whole next, which clears it at once when it is healthy;
 *   <li>a group of one runs alone; if it fails, it leaves for the solo lane.
 * </ul>
 * Each group known to fail thus costs at most two trials, and with {@code k} culprits (failing
 * every time) among {@code n} suspects the search ends after at most {@code 2·k·ceil(log2 n)}
 * trials, however few are allowed per tick. When only some of a group's metrics are due
 * (different intervals), those are tried whole: whether they hold the culprit is not known.
 *
 * <p>The search lives here, not in one tick: a split repeated identically every tick puts a
 * culprit in every part when there are several culprits, so nothing is ever learned and the
 * healthy suspects are never delivered.
 *
 * <p>The search also survives what it cannot foresee: a metric that fails only now and then is
 * at worst cleared and suspected again; a metric removed from the configuration leaves its
 * group, which is then no longer known to fail; a session lost in the middle of a trial leaves
 * the groups as they were before the trial.
 *
 * <p>Not thread-safe: owned by one reaper.
 */
public final class SuspectGroups {

    /** Oldest first; every group is non-empty and no metric is in two groups. */
    private final List<Group> groups = new ArrayList<>();

    public boolean contains(String metric) {
        return groupOf(metric) != null;
    }

    /**
     * These metrics failed together in one round trip (a pipeline or a trial of several): a new
     * group known to fail, queued behind the others. The rest of a group they came from is no
     * longer known to fail.
     */
    public void failedTogether(Collection<String> metrics) {
        if (metrics.isEmpty()) {
            return;
        }
        metrics.forEach(metric -> leave(metric, false));
        groups.add(new Group(metrics));
    }

    /** The metric ran without error: it leaves the suspects; its group's culprit is still in it. */
    public void cleared(String metric) {
        leave(metric, true);
    }

    /**
     * The metric failed alone and moves to the solo lane: its group may have lost its only
     * culprit, so the rest is no longer known to fail.
     */
    void isolated(String metric) {
        leave(metric, false);
    }

    /**
     * Moves the metric's group behind all others: it timed out alone on a tick in which the
     * server answered nothing, and tried first again it would stop the search before any answer.
     */
    public void requeue(String metric) {
        Group group = groupOf(metric);
        if (group != null) {
            groups.remove(group);
            groups.add(group);
        }
    }

    /**
     * The next trial: from the oldest group with a member in {@code candidates}, its candidates
     * whole, or their first half when they are the whole group and it is known to fail. A trial
     * of one metric runs it alone.
     *
     * @param candidates the suspects that may still run in this tick: due, and not run alone yet
     * @return the trial's metrics, in group order; empty when no group has a candidate
     */
    public List<String> nextTrial(Set<String> candidates) {
        for (Group group : groups) {
            List<String> members = group.members.stream().filter(candidates::contains).toList();
            if (members.size() > 1 && group.failed && members.size() == group.members.size()) {
                return members.subList(0, (members.size() + 1) / 2);
            }
            if (!members.isEmpty()) {
                return members;
            }
        }
        return List.of();
    }

    /** Forgets the metrics no longer collected; groups that lose members are no longer known to fail. */
    void retainOnly(Set<String> metrics) {
        for (Group group : List.copyOf(groups)) {
            for (String metric : List.copyOf(group.members)) {
                if (!metrics.contains(metric)) {
                    leave(metric, false);
                }
            }
        }
    }

    /** @param culpritStays whether the metric was healthy, so its group still fails without it */
    private void leave(String metric, boolean culpritStays) {
        Group group = groupOf(metric);
        if (group == null) {
            return;
        }
        group.members.remove(metric);
        if (group.members.isEmpty()) {
            groups.remove(group);
        } else if (!culpritStays) {
            group.failed = false;
        }
    }

    private Group groupOf(String metric) {
        for (Group group : groups) {
            if (group.members.contains(metric)) {
                return group;
            }
        }
        return null;
    }

    /** Suspects that failed together, in the order they were sent. */
    private static final class Group {
        private final List<String> members;
        /** Whether these very metrics failed together, so that one of them is a culprit. */
        private boolean failed = true;

        Group(Collection<String> members) {
            this.members = new ArrayList<>(members);
        }
    }
}
