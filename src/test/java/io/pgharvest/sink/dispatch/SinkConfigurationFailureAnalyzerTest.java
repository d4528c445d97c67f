package io.pgharvest.sink.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/** A refused sink configuration is reported at start-up one problem per line, with what to do. */
@Tag("fast")
class SinkConfigurationFailureAnalyzerTest {

    @Test
    void everyProblemGetsALineOfItsOwn() {
        var cause = new SinkConfigurationException(List.of("pgharvest.sinks[0].url is required for a postgres sink",
                "pgharvest.sinks[1].retention applies to postgres sinks only (partitions entirely older than this "
                        + "are dropped)"));
        FailureAnalysis analysis = new SinkConfigurationFailureAnalyzer()
                .analyze(new BeanCreationException("sinkDispatcher", "failed", cause));

        assertThat(analysis.getDescription()).isEqualTo("pgharvest cannot use its sink configuration:\n"
                + "    pgharvest.sinks[0].url is required for a postgres sink\n"
                + "    pgharvest.sinks[1].retention applies to postgres sinks only (partitions entirely older than this "
                + "are dropped)");
        assertThat(analysis.getAction()).contains("docs/sinks.md", "GET /api/v1/sink-types");
        assertThat(analysis.getCause()).isSameAs(cause);
    }

    @Test
    void springBootFindsTheAnalyzer() throws Exception {
        var names = new java.util.ArrayList<String>();
        var resources = getClass().getClassLoader().getResources("META-INF/spring.factories");
        while (resources.hasMoreElements()) {
            var factories = new java.util.Properties();
            try (var in = resources.nextElement().openStream()) {
                factories.load(in);
            }
            names.addAll(List.of(factories.getProperty(FailureAnalyzer.class.getName(), "").split("\\s*,\\s*")));
        }
        assertThat(names).contains(SinkConfigurationFailureAnalyzer.class.getName());
    }
}
