package io.pgharvest.pgwatch.format;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import java.util.List;
import java.util.Map;

/**
 * One metric of pgwatch's {@code metrics.yaml}; the name is its key in the {@code metrics:} map.
 * {@code statement_timeout_seconds} and {@code instance_sqls} (the instance-wide variant that fans
 * out to the instance's databases) are pgharvest's own additions (pgwatch ignores them), and so is
 * {@code native}: the pgharvest implementation that collects a metric without SQL.
 */
@JsonPropertyOrder({"description", "sqls", "gauges", "is_instance_level", "node_status", "storage_name",
        "init_sql", "statement_timeout_seconds", "instance_sqls", "native"})
public record MetricEntry(
        String description,
        Map<Integer, String> sqls,
        List<String> gauges,
        Boolean isInstanceLevel,
        NodeStatus nodeStatus,
        String storageName,
        String initSql,
        Integer statementTimeoutSeconds,
        Map<Integer, String> instanceSqls,
        @JsonProperty("native") String nativeName) {

    public static MetricEntry of(MetricDefinition metric) {
        return new MetricEntry(SourceEntry.blankToNull(metric.description()), metric.sqls(), metric.gauges(),
                metric.instanceLevel() ? Boolean.TRUE : null,
                metric.nodeStatus() == NodeStatus.ANY ? null : metric.nodeStatus(),
                metric.storageName(), metric.initSql(), metric.statementTimeoutSeconds(),
                metric.instanceSqls().isEmpty() ? null : metric.instanceSqls(), metric.nativeName());
    }

    MetricDefinition toDefinition(String name) {
        return new MetricDefinition(name, description, sqls, gauges, isInstanceLevel != null && isInstanceLevel,
                nodeStatus, SourceEntry.blankToNull(storageName), SourceEntry.blankToNull(initSql),
                statementTimeoutSeconds, instanceSqls, SourceEntry.blankToNull(nativeName));
    }
}
