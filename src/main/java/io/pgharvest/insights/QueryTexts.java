package io.pgharvest.insights;

import io.pgharvest.nativemetric.NativeMetric;
import org.springframework.stereotype.Component;

/** query_texts: each query id's normalized text once, and again when it changes ({@link QueryTextsCollector}). */
@Component
final class QueryTexts implements NativeMetric {

    private final QueryInsightsProperties properties;

    QueryTexts(QueryInsightsProperties properties) {
        this.properties = properties;
    }

    @Override
    public String name() {
        return "query_texts";
    }

    @Override
    public Collector newCollector() {
        return new QueryTextsCollector(properties.textsTimeout(), properties.includeOwnStatements());
    }
}
