package io.pgharvest.reaper;

import io.pgharvest.kind.ServerFacts;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.reaper.schedule.TickSchedule;
import io.pgharvest.reaper.tick.CollectionPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a reaper collects now: its source's configuration, the schedule made from it for the
 * server's role and version (with the reachability heartbeat, {@link #INSTANCE_UP}), and the
 * metrics not active for them with the reason. The three change together and only in
 * {@link #replan}, which keeps due times; they have one owner so that the schedule, the status's
 * inactive metrics and the configuration they came from never disagree.
 *
 * <p>Owned by the reaper's thread.
 */
final class ReaperPlan {

    /** Its lines are the reaper's: the same logger as {@link SourceReaper}'s own. */
    private static final Logger log = LoggerFactory.getLogger(SourceReaper.class);

    /** Schedule key of the reachability heartbeat; '@' cannot start a metric name. */
    static final String INSTANCE_UP = "@instance_up";
    static final String INSTANCE_UP_METRIC = "instance_up";
    private static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(60);

    private final String name;
    private final Duration minTickPeriod;
    private CollectionPlan config;
    /** When the first plan was made (a tick is never late from before it); null before. */
    private Instant firstPlanned;
    private TickSchedule schedule = TickSchedule.empty();
    private final Map<String, MetricLane> inactive = new LinkedHashMap<>();

    ReaperPlan(String name, Duration minTickPeriod) {
        this.name = name;
        this.minTickPeriod = minTickPeriod;
    }

    /** The configuration planned from; null before the first. */
    CollectionPlan config() {
        return config;
    }

    /** Takes {@code next} as the configuration; the caller re-plans. */
    void use(CollectionPlan next) {
        config = next;
    }

    TickSchedule schedule() {
        return schedule;
    }

    /** The metrics of the selection not active for this server, with why. */
    Map<String, MetricLane> inactive() {
        return inactive;
    }

    /**
     * Recomputes the active metrics for the configuration and the server's role and version,
     * keeping due times.
     *
     * @param facts the session's, or null while not connected (everything is scheduled then)
     * @param previousTick the tick to resume after (a previous owner's), or null
     */
    Planned replan(ServerFacts facts, Instant now, Instant previousTick) {
        boolean inRecovery = facts != null && facts.inRecovery();
        Map<String, Integer> selection = config.selection(inRecovery);
        var active = new LinkedHashMap<String, Duration>();
        inactive.clear();
        int shortest = Integer.MAX_VALUE;
        for (var entry : selection.entrySet()) {
            shortest = Math.min(shortest, entry.getValue());
            MetricLane lane = inactiveLane(config.definitions().get(entry.getKey()), facts);
            if (lane != null) {
                inactive.put(entry.getKey(), lane);
            } else {
                active.put(entry.getKey(), Duration.ofSeconds(entry.getValue()));
            }
        }
        active.put(INSTANCE_UP, shortest == Integer.MAX_VALUE ? DEFAULT_HEARTBEAT : Duration.ofSeconds(shortest));
        long phaseSeed = name.hashCode() * 2_654_435_761L;
        schedule = TickSchedule.plan(active, minTickPeriod, phaseSeed, now, schedule);
        if (firstPlanned == null) {
            firstPlanned = now;
        }
        if (previousTick != null) {
            schedule.resumeAfter(previousTick);
        }
        return new Planned(active.keySet(), selection.keySet());
    }

    /** Logs the metrics without SQL for the server's version, once per plan. */
    void logInactive(ServerFacts facts) {
        inactive.forEach((metric, lane) -> {
            if (lane == MetricLane.NO_SQL) {
                log.info("Source {}: metric {} has no SQL for server version {}; not collected",
                        name, metric, facts.displayVersion());
            }
        });
    }

    /**
     * The metrics to collect in a round trip of {@code due}: those still scheduled (connecting or
     * re-reading the role may have re-planned: a metric of the other role's selection must not
     * run now), without the heartbeat.
     */
    List<String> stillScheduled(Collection<String> due) {
        Map<String, Duration> intervals = schedule.intervals();
        return due.stream().filter(m -> !m.equals(INSTANCE_UP) && intervals.containsKey(m)).toList();
    }

    /** Where a tick of {@code scheduledAt} is late from: its grid point, or the first plan for a point that passed before it. */
    Instant lateFrom(Instant scheduledAt) {
        return scheduledAt.isBefore(firstPlanned) ? firstPlanned : scheduledAt;
    }

    /** The heartbeat's measurement: the source reachable ({@code up}) at {@code at}. */
    Measurement instanceUp(boolean up, Instant at) {
        var row = new Measurement.Row(Map.of(INSTANCE_UP_METRIC, up ? 1L : 0L), Map.of());
        return new Measurement(name, INSTANCE_UP_METRIC, at, List.of(row), config.source().tags());
    }

    private MetricLane inactiveLane(MetricDefinition definition, ServerFacts facts) {
        if (facts == null) {
            return null; // not connected yet: schedule everything, only heartbeats run
        }
        if (config.source().onlyIfPrimary() && facts.inRecovery()
                || !definition.nodeStatus().matches(facts.inRecovery())) {
            return MetricLane.NOT_FOR_ROLE;
        }
        return definition.sqlFor(facts.majorVersion()).isEmpty() && !definition.isNative() ? MetricLane.NO_SQL : null;
    }

    /**
     * What a plan keeps: the metrics it schedules (heartbeat included) and those the selection names.
     */
    record Planned(Set<String> active, Set<String> selected) {
    }
}
