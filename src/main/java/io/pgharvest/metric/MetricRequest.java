package io.pgharvest.metric;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.pgharvest.api.RequestNames;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRules;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.InvalidConfigException;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/** A metric as a client sends it; {@code name} is needed on create only (the path carries it otherwise). */
@Schema(name = "MetricInput", description = "A metric as sent on create or replace")
record MetricRequest(
        @Schema(example = "db_stats") String name,
        String description,
        @Schema(description = "lowest PostgreSQL major version -> query", example = "{\"14\": \"select 1 as one\"}")
        Map<String, String> sqls,
        @Schema(description = "gauge columns; '*' for all; the others are counters", example = "[\"*\"]")
        List<String> gauges,
        Boolean instanceLevel,
        @Schema(allowableValues = {"any", "primary", "standby"}) String nodeStatus,
        String storageName,
        String initSql,
        @Schema(description = "per-metric statement timeout, 1 to 86400 seconds", example = "5")
        Integer statementTimeoutSeconds,
        @Schema(description = "instance-wide variant per version (same keys as sqls): the same columns for every"
                + " database plus fan_out_dbname; run once per instance and split per database",
                example = "{\"14\": \"select datname as fan_out_dbname, numbackends from pg_stat_database\"}")
        Map<String, String> instanceSqls,
        @JsonProperty("native")
        @Schema(description = "collect with pgharvest's own implementation of this name instead of SQL"
                + " (cpu_load, psutil_cpu, psutil_mem, psutil_disk, psutil_disk_io_total, server_log_event_counts)",
                example = "cpu_load")
        String nativeName) {

    /** @throws InvalidConfigException naming {@code name}, {@code nodeStatus} or {@code sqls.<key>} */
    MetricDefinition toDefinition(String pathName) {
        var problems = new ArrayList<FieldProblem>();
        String effectiveName = RequestNames.resolve(pathName, name, problems);
        NodeStatus status = null;
        try {
            status = NodeStatus.fromLabel(nodeStatus);
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem("nodeStatus", e.getMessage()));
        }
        var versions = byVersion("sqls", sqls, problems);
        var instanceVersions = byVersion("instanceSqls", instanceSqls, problems);
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(StoreTable.METRICS, String.valueOf(effectiveName), problems);
        }
        return new MetricDefinition(effectiveName, description, versions, gauges,
                instanceLevel != null && instanceLevel, status, blankToNull(storageName), blankToNull(initSql),
                statementTimeoutSeconds, instanceVersions, blankToNull(nativeName));
    }

    private static TreeMap<Integer, String> byVersion(String field, Map<String, String> texts,
            List<FieldProblem> problems) {
        var versions = new TreeMap<Integer, String>();
        if (texts != null) {
            texts.forEach((key, sql) -> {
                OptionalInt version = MetricRules.parseMajorVersion(key);
                if (version.isEmpty()) {
                    problems.add(new FieldProblem(field + "." + key, MetricRules.notAMajorVersion()));
                } else {
                    versions.put(version.getAsInt(), sql);
                }
            });
        }
        return versions;
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
