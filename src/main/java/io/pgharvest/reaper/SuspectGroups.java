package io.pgharvest.reaper;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The suspects of one source, kept as a binary search that goes on across ticks.
 *
 * <p>A pipeline that fails does not say which of its statements failed, so its metrics form one
 * <em>group</em>: at least one of them is a culprit (if the failure repeats). Every tick, groups
 * are taken oldest first and the due members of each are halved; each half is one trial, run as
 * one pipeline, for as long as the tick's round trips last. A trial that succeeds clears its
 * metrics (they are delivered and go back to the pipeline); a trial of several metrics that fails
 * becomes a group of its own, queued behind the others, to be halved on a later tick; a metric
 * that fails alone leaves for the solo lane. Halves not tried stay in their group.
 *
 * <p>The search is remembered here, not started afresh each tick: a split that is the same every
 * tick puts a culprit in every group when there are several culprits, and then nothing is ever
 * learned and the healthy suspects are never delivered. Halving instead finds each culprit with
 * about {@code 2·log2(n)} trials, and every healthy metric leaves the suspects as soon as it is in
 * a half without a culprit.
 *
 * <p>Members of a group are only kept together as long as nothing clears them: a group is never
 * run whole again (it is known to fail), so a group that lost its culprit to a configuration
 * change is still halved, its metrics cleared a half at a time.
 *
 * <p>Not thread-safe: owned by one reaper.
 */
final class SuspectGroups {

    /** Oldest first; every group is non-empty and no metric is in two groups. */
    private final List<List<String>> groups = new ArrayList<>();

    boolean contains(String metric) {
        return groupOf(metric) != null;
    }

    /** The metrics of a pipeline that failed as a whole; metrics already suspected move along. */
    void failedTogether(Collection<String> metrics) {
        if (metrics.isEmpty()) {
            return;
        }
        metrics.forEach(this::remove);
        groups.add(new ArrayList<>(metrics));
    }

    /** The metric ran without error (in a trial, or alone) or left for the solo lane. */
    void remove(String metric) {
        List<String> group = groupOf(metric);
        if (group != null) {
            group.remove(metric);
            if (group.isEmpty()) {
                groups.remove(group);
            }
        }
    }

    /**
     * Moves the metric's group behind all others: it timed out on a tick in which the server
     * answered nothing, so trying it first again would stall every other group with it.
     */
    void requeue(String metric) {
        List<String> group = groupOf(metric);
        if (group != null) {
            groups.remove(group);
            groups.add(group);
        }
    }

    /**
     * This tick's trials: the due members of each group, oldest group first, halved (a lone due
     * member is one trial), until {@code roundTrips} trials are planned. Each trial is one round
     * trip; a trial of one metric runs it alone.
     *
     * @param due the metrics due on this tick
     */
    List<List<String>> plan(Set<String> due, int roundTrips) {
        var trials = new ArrayList<List<String>>();
        for (Iterator<List<String>> it = groups.iterator(); it.hasNext() && trials.size() < roundTrips; ) {
            List<String> members = it.next().stream().filter(due::contains).toList();
            if (members.isEmpty()) {
                continue;
            }
            int half = (members.size() + 1) / 2;
            trials.add(members.subList(0, half));
            if (half < members.size() && trials.size() < roundTrips) {
                trials.add(members.subList(half, members.size()));
            }
        }
        return trials;
    }

    void retainOnly(Set<String> metrics) {
        groups.forEach(group -> group.retainAll(metrics));
        groups.removeIf(List::isEmpty);
    }

    private List<String> groupOf(String metric) {
        for (List<String> group : groups) {
            if (group.contains(metric)) {
                return group;
            }
        }
        return null;
    }
}
