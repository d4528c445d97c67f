package io.pgharvest.metric;

import io.pgharvest.api.TableResource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.Stored;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The metric catalog: built-in metrics plus the operator's own, which may override them. */
@RestController
@RequestMapping(MetricController.PATH)
@Tag(name = "Metrics", description = "SQL metric definitions: built-in ones and the operator's own, which may override"
        + " them. A metric still used by sources or presets cannot be deleted.")
class MetricController extends CatalogController<MetricDefinition, MetricRequest, MetricResponse> {

    static final String PATH = "/api/v1/metrics";

    private final ConfigStore store;

    MetricController(ConfigStore store) {
        super(new TableResource<>(store, StoreTable.METRICS, PATH, ConfigSnapshot::metrics, MetricDefinition::name,
                (metric, modifyIndex) -> MetricResponse.of(metric,
                        Origin.of(store.origin(StoreTable.METRICS, metric.name())), modifyIndex)));
        this.store = store;
    }

    @Override
    Stored<MetricDefinition> create(MetricRequest request) {
        return store.createMetric(request.toDefinition(null));
    }

    @Override
    Stored<MetricDefinition> put(String name, MetricRequest request) {
        return store.putMetric(request.toDefinition(name));
    }

    @Override
    long delete(String name) {
        return store.deleteMetric(name);
    }
}
