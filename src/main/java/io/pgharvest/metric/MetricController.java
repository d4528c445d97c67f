package io.pgharvest.metric;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The metric catalog: built-in metrics plus the operator's own, which may override them. */
@RestController
@RequestMapping("/api/v1/metrics")
@Tag(name = "Metrics", description = "SQL metric definitions: built-in ones and the operator's own, which may override"
        + " them. A metric still used by sources or presets cannot be deleted.")
class MetricController extends CatalogController<MetricDefinition, MetricRequest, MetricResponse> {

    MetricController(ConfigStore store) {
        super(store, StoreTable.METRICS, "/api/v1/metrics", ConfigSnapshot::metrics, MetricDefinition::name,
                MetricResponse::of, MetricRequest::toDefinition,
                new StoreCalls<>(store::createMetric, store::putMetric, store::deleteMetric));
    }
}
