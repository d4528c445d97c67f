package io.pgharvest.pgwatch;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a pgwatch configuration database (pgwatch 3: schema {@code pgwatch}, tables
 * {@code source}, {@code metric} and {@code preset}) in one read-only transaction and turns it
 * into one pgwatch import document (sources, metrics and presets, with the field names of
 * pgwatch's YAML files), so that it goes through exactly the same reading and validation as an
 * imported file. Rows are read as JSON ({@code to_jsonb}), so a column an older pgwatch lacks is
 * simply absent; nothing is written to that database.
 */
final class PgwatchConfigDatabase {

    /** pgwatch's {@code source} columns and their names in pgwatch's {@code sources.yaml}. */
    private static final Map<String, String> SOURCE_FIELDS = Map.ofEntries(
            Map.entry("connstr", "conn_str"),
            Map.entry("dbtype", "kind"),
            Map.entry("preset_config", "preset_metrics"),
            Map.entry("config", "custom_metrics"),
            Map.entry("preset_config_standby", "preset_metrics_standby"),
            Map.entry("config_standby", "custom_metrics_standby"),
            Map.entry("is_enabled", "is_enabled"),
            Map.entry("group", "group"),
            Map.entry("custom_tags", "custom_tags"),
            Map.entry("include_pattern", "include_pattern"),
            Map.entry("exclude_pattern", "exclude_pattern"),
            Map.entry("only_if_master", "only_if_master"),
            Map.entry("host_config", "host_config"),
            Map.entry("is_superuser", "is_superuser"));
    /** pgwatch's {@code metric} columns, named as in {@code metrics.yaml}. */
    private static final java.util.List<String> METRIC_FIELDS = java.util.List.of("sqls", "init_sql", "description",
            "node_status", "gauges", "is_instance_level", "storage_name");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private PgwatchConfigDatabase() {
    }

    /**
     * The configuration database's URL as a value.
     *
     * @throws IllegalStateException naming {@code property} when it does not parse; never with the password
     */
    static ConnectionString parse(String property, String url) {
        try {
            return ConnectionString.parse(url);
        } catch (InvalidConnectionStringException e) {
            throw new IllegalStateException(property + ": not a usable PostgreSQL connection string: " + e.getMessage());
        }
    }

    /**
     * The import document of the configuration database at {@code parsed}.
     *
     * @param property the property that named the URL, for errors
     * @throws IllegalStateException naming {@code property} and the masked URL when the database
     *     cannot be read or has no pgwatch schema; never with the password
     */
    static byte[] read(String property, ConnectionString parsed) {
        var properties = new java.util.Properties();
        properties.putAll(parsed.jdbcProperties());
        try (Connection c = DriverManager.getConnection(parsed.jdbcUrl(), properties)) {
            c.setReadOnly(true);
            c.setAutoCommit(false);
            ObjectNode document = JSON.createObjectNode();
            ArrayNode sources = document.putArray("sources");
            ObjectNode metrics = document.putObject("metrics");
            ObjectNode presets = document.putObject("presets");
            for (JsonNode row : rows(c, "pgwatch.metric")) {
                ObjectNode metric = metrics.putObject(row.path("name").asString());
                METRIC_FIELDS.forEach(field -> copy(row, field, metric, field));
            }
            for (JsonNode row : rows(c, "pgwatch.preset")) {
                ObjectNode preset = presets.putObject(row.path("name").asString());
                copy(row, "description", preset, "description");
                copy(row, "metrics", preset, "metrics");
            }
            for (JsonNode row : rows(c, "pgwatch.source")) {
                ObjectNode source = sources.addObject();
                source.put("name", row.path("name").asString());
                SOURCE_FIELDS.forEach((column, field) -> copy(row, column, source, field));
                // Defaults in pgwatch's table, reported by the reader as unused only when set.
                if (!source.path("is_superuser").asBoolean(false)) {
                    source.remove("is_superuser");
                }
                if (source.path("host_config").isObject() && source.path("host_config").isEmpty()) {
                    source.remove("host_config");
                }
            }
            c.rollback();
            return JSON.writeValueAsBytes(document);
        } catch (SQLException e) {
            throw new IllegalStateException(property + ": cannot read the pgwatch configuration database "
                    + parsed.masked() + ": " + e.getMessage(), e);
        }
    }

    private static java.util.List<JsonNode> rows(Connection c, String table) throws SQLException {
        var rows = new java.util.ArrayList<JsonNode>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT to_jsonb(t)::text FROM " + table + " t ORDER BY t.name")) {
            while (rs.next()) {
                rows.add(JSON.readTree(rs.getString(1)));
            }
        }
        return rows;
    }

    private static void copy(JsonNode row, String column, ObjectNode target, String field) {
        JsonNode value = row.get(column);
        if (value != null && !value.isNull()) {
            target.set(field, value);
        }
    }
}
