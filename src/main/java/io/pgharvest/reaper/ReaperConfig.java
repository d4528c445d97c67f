package io.pgharvest.reaper;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Source;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything one reaper needs from the configuration, as an immutable value. The reaper service
 * compares the new value with the running one and only disturbs a reaper whose value changed.
 *
 * @param primaryMetrics metric -> interval in seconds while the server is a primary
 * @param standbyMetrics metric -> interval in seconds while the server is in recovery
 * @param definitions the definitions of every metric in either selection
 */
record ReaperConfig(Source source, ConnectionString connection, Map<String, Integer> primaryMetrics,
        Map<String, Integer> standbyMetrics, Map<String, MetricDefinition> definitions) {

    ReaperConfig {
        primaryMetrics = Map.copyOf(primaryMetrics);
        standbyMetrics = Map.copyOf(standbyMetrics);
        definitions = Map.copyOf(definitions);
    }

    static ReaperConfig of(Source source, ConfigSnapshot snapshot) {
        var primary = snapshot.selectedMetrics(source, false);
        var standby = snapshot.selectedMetrics(source, true);
        var definitions = new HashMap<String, MetricDefinition>();
        for (var name : primary.keySet()) {
            definitions.put(name, snapshot.metrics().get(name));
        }
        for (var name : standby.keySet()) {
            definitions.put(name, snapshot.metrics().get(name));
        }
        return new ReaperConfig(source, source.connection().connectionString(), primary, standby, definitions);
    }

    String name() {
        return source.name();
    }

    Map<String, Integer> selection(boolean inRecovery) {
        return inRecovery ? standbyMetrics : primaryMetrics;
    }

    /** Whether moving to {@code next} needs a new session (anything that shapes the connection). */
    boolean sameConnection(ReaperConfig next) {
        return source.connStr().equals(next.source.connStr()) && source.kind() == next.source.kind();
    }
}
