package io.pgharvest.insights;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.nativemetric.NativeMetric;
import java.time.Instant;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/** query_plans: generic plans of a database's top plain reads, within a time budget ({@link QueryPlansCollector}). */
@Component
final class QueryPlans implements NativeMetric, DisposableBean {

    private final QueryInsightsProperties properties;
    /** Every source's latest plan shapes, in the data directory: a change across a restart is still marked. */
    private final PlanShapes shapes;

    QueryPlans(QueryInsightsProperties properties, DataDirectory dataDirectory) {
        this.properties = properties;
        this.shapes = new PlanShapes(dataDirectory.resolve(PlanShapes.FILE_NAME), Instant.now());
    }

    /** Keeps the times of plans read again since the last change (a change is written at once). */
    @Override
    public void destroy() {
        shapes.flush();
    }

    @Override
    public String name() {
        return "query_plans";
    }

    @Override
    public Collector newCollector() {
        return new QueryPlansCollector(properties.planStatements(), properties.planEvery(), properties.planBudget(),
                properties.planTimeout(), properties.planningLogin().orElse(null), properties.replanFactor(), shapes);
    }
}
