package io.pgharvest.store.state;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.pgwatch.format.MetricsFile;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The metrics and presets shipped inside the jar ({@value #RESOURCE}), in pgwatch's
 * {@code metrics.yaml} format. The operator's own metrics and presets add to or override them.
 */
public record BuiltInCatalog(Map<String, MetricDefinition> metrics, Map<String, Preset> presets) {

    static final String RESOURCE = "catalog/metrics.yaml";

    public BuiltInCatalog {
        metrics = Map.copyOf(metrics);
        presets = Map.copyOf(presets);
    }

    public static BuiltInCatalog load(PgwatchYaml yaml) {
        try (InputStream in = BuiltInCatalog.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the built-in catalog " + RESOURCE + " is missing from the class path");
            }
            MetricsFile file = yaml.readMetrics(in, Path.of("classpath:" + RESOURCE));
            return new BuiltInCatalog(file.definitions(), file.presetDefinitions());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the built-in catalog " + RESOURCE, e);
        }
    }
}
