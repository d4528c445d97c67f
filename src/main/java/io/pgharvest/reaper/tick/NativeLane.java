package io.pgharvest.reaper.tick;

import io.pgharvest.kind.ServerFacts;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.BoundedText;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.nativemetric.SqlReader;
import io.pgharvest.reaper.instance.Instance;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs a source's due native metrics ({@link NativeMetric}) after the tick's round trip, one after
 * the other on the reaper's thread. Each keeps its own collector (its state between ticks) for as
 * long as the source selects it. A failing native metric fails alone: its error goes to the
 * ledger, the other metrics of the tick are delivered as usual. Only a lost session ends the
 * tick, as it would for a SQL metric; when the reaper then reconnects and runs the tick again, a
 * native metric that already ran in it is not run twice. Owned by one reaper.
 */
public final class NativeLane {

    private final String source;
    private final NativeMetricRegistry registry;
    private final Map<String, Held> collectors = new HashMap<>();
    /** What this source's native metrics share; lives as long as the source's reaper. */
    private final SourceShelf shelf = new SourceShelf();
    private final Map<String, MetricLane> lanes = new HashMap<>();
    /** The tick each metric last ran in: a tick run again after a reconnect does not run it twice. */
    private final Map<String, Instant> ranAt = new HashMap<>();
    /** Locality is decided once per server address (a reconnect may land elsewhere). */
    private String localityOf;
    private boolean onThisHost;

    public NativeLane(String source, NativeMetricRegistry registry) {
        this.source = source;
        this.registry = registry;
    }

    /**
     * Runs the native metrics among {@code due}, adding their measurements to {@code out}.
     *
     * @param instance the instance the source is on, whose databases' collectors of a metric may
     *     share state ({@link Instance#nativeShelf})
     * @throws SourceDownException when a metric's query found the session gone
     */
    public void run(List<String> due, CollectionPlan config, SourceSession session, Instance instance,
            Map<String, Duration> intervals, MetricLedger ledger, Instant now, List<Measurement> out)
            throws SourceDownException {
        ServerFacts facts = session.facts();
        for (String metric : due) {
            MetricDefinition definition = config.definitions().get(metric);
            if (definition == null || !definition.isNative() || now.equals(ranAt.get(metric))) {
                continue;
            }
            NativeTarget target = new NativeTarget(source, facts.database(), facts.versionNum() / 10000,
                    facts.serverAddress(), onThisHost(facts.serverAddress()), new SessionReader(session), intervals.get(metric),
                    now, config.restApi(), session::openPlanning, shelf, instance.nativeShelf(metric),
                    config.source().keepQueryLiterals());
            try {
                var byName = collector(metric, definition).collectByName(target, definition.effectiveStorageName());
                ranAt.put(metric, now);
                byName.forEach((storageName, rows) ->
                        out.add(new Measurement(source, storageName, now, rows, config.source().tags())));
                lanes.put(metric, MetricLane.NATIVE);
                ledger.succeeded(metric, now);
            } catch (NativeMetric.Unavailable e) {
                ranAt.put(metric, now);
                lanes.put(metric, MetricLane.UNAVAILABLE);
                ledger.failed(metric, "metric " + metric + " not collected: " + BoundedText.messageOf(e), now);
            } catch (SQLException e) {
                if (session.isBroken(e)) {
                    throw new SourceDownException(source, e); // run again once reconnected
                }
                ranAt.put(metric, now);
                lanes.put(metric, MetricLane.NATIVE);
                ledger.failed(metric, "metric " + metric + " failed [SQLState " + e.getSQLState() + "]: "
                        + BoundedText.messageOf(e), now);
            } catch (Exception e) {
                ranAt.put(metric, now);
                lanes.put(metric, MetricLane.NATIVE);
                ledger.failed(metric, "metric " + metric + " failed: " + e, now);
            }
        }
    }

    private NativeMetric.Collector collector(String metric, MetricDefinition definition)
            throws NativeMetric.Unavailable {
        Held held = collectors.get(metric);
        if (held == null || !held.implementation().equals(definition.nativeName())) {
            NativeMetric implementation = registry.find(definition.nativeName()).orElseThrow(
                    () -> new NativeMetric.Unavailable("no implementation of '" + definition.nativeName()
                            + "' in this pgharvest"));
            held = new Held(definition.nativeName(), implementation.newCollector());
            collectors.put(metric, held);
        }
        return held.collector();
    }

    /** A native metric's reads on the source's session, with the session's timeout or one of their own. */
    private record SessionReader(SourceSession session) implements SqlReader {

        @Override
        public List<Map<String, Object>> query(String sql, Object... parameters) throws SQLException {
            return session.read(sql, parameters);
        }

        @Override
        public List<Map<String, Object>> query(Duration timeout, String sql, Object... parameters)
                throws SQLException {
            return session.read(timeout, sql, parameters);
        }
    }

    /** A collector and the implementation it came from (a redefined metric gets a new one). */
    private record Held(String implementation, NativeMetric.Collector collector) {
    }

    private boolean onThisHost(String serverAddress) {
        if (localityOf == null || !localityOf.equals(serverAddress)) {
            onThisHost = registry.locality().isOnThisHost(serverAddress);
            localityOf = serverAddress == null ? "" : serverAddress;
        }
        return onThisHost;
    }

    /** The lane of a native metric that ran; {@link MetricLane#NATIVE} before its first run. */
    public MetricLane lane(String metric) {
        return lanes.getOrDefault(metric, MetricLane.NATIVE);
    }

    /** Forgets the collectors (and their state) of metrics no longer selected. */
    public void retainOnly(Set<String> metrics) {
        collectors.keySet().retainAll(metrics);
        lanes.keySet().retainAll(metrics);
        ranAt.keySet().retainAll(metrics);
    }
}
