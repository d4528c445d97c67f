package io.pgharvest.insights;

import io.pgharvest.nativemetric.NativeMetric;
import org.springframework.stereotype.Component;

/** active_sessions: the non-idle sessions sampled often, summed before they leave ({@link ActiveSessionsCollector}). */
@Component
final class ActiveSessions implements NativeMetric {

    private final QueryInsightsProperties properties;

    ActiveSessions(QueryInsightsProperties properties) {
        this.properties = properties;
    }

    @Override
    public String name() {
        return "active_sessions";
    }

    @Override
    public Collector newCollector() {
        return new ActiveSessionsCollector(properties.sampleRowsEvery());
    }
}
