package io.pgharvest.metric;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/** A metric as the API returns it, with where it comes from and its modify index. */
@Schema(name = "Metric")
record MetricResponse(
        String name,
        String description,
        Map<Integer, String> sqls,
        List<String> gauges,
        boolean instanceLevel,
        NodeStatus nodeStatus,
        String storageName,
        String initSql,
        Integer statementTimeoutSeconds,
        Map<Integer, String> instanceSqls,
        @JsonProperty("native")
        @Schema(description = "the pgharvest implementation collecting this metric instead of SQL")
        String nativeName,
        @Schema(description = "a metric of this name ships with pgharvest", accessMode = Schema.AccessMode.READ_ONLY)
        boolean builtIn,
        @Schema(description = "the operator's definition replaces the built-in one; DELETE restores it",
                accessMode = Schema.AccessMode.READ_ONLY)
        boolean overridden,
        @Schema(accessMode = Schema.AccessMode.READ_ONLY) long modifyIndex) {

    static MetricResponse of(MetricDefinition metric, Origin origin, long modifyIndex) {
        return new MetricResponse(metric.name(), metric.description(), metric.sqls(), metric.gauges(),
                metric.instanceLevel(), metric.nodeStatus(), metric.storageName(), metric.initSql(),
                metric.statementTimeoutSeconds(), metric.instanceSqls(), metric.nativeName(), origin.builtIn(), origin.overridden(), modifyIndex);
    }
}
