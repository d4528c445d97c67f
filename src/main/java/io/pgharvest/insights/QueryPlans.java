package io.pgharvest.insights;

import io.pgharvest.nativemetric.NativeMetric;
import org.springframework.stereotype.Component;

/** query_plans: generic plans of a database's top plain reads, within a time budget ({@link QueryPlansCollector}). */
@Component
final class QueryPlans implements NativeMetric {

    private final QueryInsightsProperties properties;

    QueryPlans(QueryInsightsProperties properties) {
        this.properties = properties;
    }

    @Override
    public String name() {
        return "query_plans";
    }

    @Override
    public Collector newCollector() {
        return new QueryPlansCollector(properties.planStatements(), properties.planEvery(), properties.planBudget(),
                properties.planTimeout(), properties.planningLogin().orElse(null));
    }
}
