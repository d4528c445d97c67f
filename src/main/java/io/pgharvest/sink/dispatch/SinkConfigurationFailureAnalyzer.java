package io.pgharvest.sink.dispatch;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a refused {@code pgharvest.sinks} into a start-up report with one line per problem. */
class SinkConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<SinkConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SinkConfigurationException cause) {
        String description = "pgharvest cannot use its sink configuration:\n    "
                + String.join("\n    ", cause.problems());
        String action = "Correct these pgharvest.sinks options. Each type of sink has the options every sink has and "
                + "its own; docs/sinks.md lists them, and GET /api/v1/sink-types lists those of this build.";
        return new FailureAnalysis(description, action, cause);
    }
}
