package io.pgharvest.insights;

import io.pgharvest.nativemetric.NativeMetric;
import org.springframework.stereotype.Component;

/** query_stats: per-interval changes of pg_stat_statements, top N plus other ({@link StatementDeltas}). */
@Component
final class QueryStats implements NativeMetric {

    private final QueryInsightsProperties properties;

    QueryStats(QueryInsightsProperties properties) {
        this.properties = properties;
    }

    @Override
    public String name() {
        return "query_stats";
    }

    @Override
    public Collector newCollector() {
        return new QueryStatsCollector(properties.topStatements(), properties.includeOwnStatements());
    }
}
