package io.pgharvest.reaper.tick;

import io.pgharvest.discovery.AddedMetrics;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Source;
import java.util.HashMap;
import java.util.Map;

/**
 * What one reaper collects and where: its source, the connection, the metric selections and
 * their definitions, everything a reaper needs from the configuration, as an immutable value
 * (not a setting: pgharvest's own settings are {@code ReaperProperties}). The reaper service
 * compares the new value with the running one and only disturbs a reaper whose value changed.
 *
 * @param primaryMetrics metric -> interval in seconds while the server is a primary
 * @param standbyMetrics metric -> interval in seconds while the server is in recovery
 * @param definitions the definitions of every metric in either selection
 * @param restApi the REST API address discovery found for the source (a Patroni member's), or null
 */
public record CollectionPlan(Source source, ConnectionString connection, Map<String, Integer> primaryMetrics,
        Map<String, Integer> standbyMetrics, Map<String, MetricDefinition> definitions, String restApi) {

    public CollectionPlan {
        primaryMetrics = Map.copyOf(primaryMetrics);
        standbyMetrics = Map.copyOf(standbyMetrics);
        definitions = Map.copyOf(definitions);
    }

    public static CollectionPlan of(Source source, ConfigSnapshot snapshot) {
        return of(source, snapshot, AddedMetrics.NONE);
    }

    /** With the metrics discovery adds to the source, in both selections. */
    public static CollectionPlan of(Source source, ConfigSnapshot snapshot, AddedMetrics added) {
        var primary = new HashMap<>(snapshot.selectedMetrics(source, false));
        var standby = new HashMap<>(snapshot.selectedMetrics(source, true));
        var definitions = new HashMap<String, MetricDefinition>();
        for (MetricDefinition definition : added.definitions()) {
            primary.put(definition.name(), added.intervalSeconds());
            standby.put(definition.name(), added.intervalSeconds());
            definitions.put(definition.name(), definition);
        }
        for (var name : primary.keySet()) {
            definitions.putIfAbsent(name, snapshot.metrics().get(name));
        }
        for (var name : standby.keySet()) {
            definitions.putIfAbsent(name, snapshot.metrics().get(name));
        }
        return new CollectionPlan(source, source.connection().connectionString(), primary, standby, definitions,
                added.restApi());
    }

    public String name() {
        return source.name();
    }

    public Map<String, Integer> selection(boolean inRecovery) {
        return inRecovery ? standbyMetrics : primaryMetrics;
    }

    /** Whether moving to {@code next} needs a new session (anything that shapes the connection). */
    public boolean sameConnection(CollectionPlan next) {
        return source.connStr().equals(next.source.connStr()) && source.kind() == next.source.kind();
    }
}
