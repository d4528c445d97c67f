package io.pgharvest.compat;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The panels of a Grafana dashboard and the raw SQL of their queries, as the dashboard checks read
 * them: panels of the classic layout (top level, inside rows, collapsed rows' own panels) and of
 * Grafana's v2 schema ({@code spec.elements}).
 */
final class GrafanaPanels {

    private GrafanaPanels() {
    }

    static List<JsonNode> panels(JsonNode dashboard) {
        var out = new ArrayList<JsonNode>();
        collect(dashboard.path("panels"), out);
        dashboard.path("rows").forEach(row -> collect(row.path("panels"), out));
        dashboard.path("spec").path("elements").forEach(out::add);
        return out;
    }

    /** Every non-blank {@code rawSql} of the panel's queries (targets, or a v2 panel's data). */
    static List<String> rawSql(JsonNode panel) {
        var out = new ArrayList<String>();
        rawSql(panel.has("targets") ? panel.path("targets") : panel.path("spec").path("data"), out);
        return out;
    }

    static String title(JsonNode panel) {
        return panel.path("title").asString(panel.path("spec").path("title").asString());
    }

    private static void rawSql(JsonNode node, List<String> out) {
        if (node.isObject() && node.hasNonNull("rawSql") && !node.get("rawSql").asString().isBlank()) {
            out.add(node.get("rawSql").asString());
            return;
        }
        node.forEach(child -> rawSql(child, out));
    }

    private static void collect(JsonNode panels, List<JsonNode> out) {
        panels.forEach(panel -> {
            out.add(panel);
            collect(panel.path("panels"), out);
        });
    }
}
