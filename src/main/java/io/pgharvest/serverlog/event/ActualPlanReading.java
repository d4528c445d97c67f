package io.pgharvest.serverlog.event;

import io.pgharvest.insights.PlanDocument;
import io.pgharvest.model.sql.LiteralRedactor;
import io.pgharvest.serverlog.entry.LogEntry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * auto_explain's actual plans ({@code duration: ... ms  plan:} and the plan), in its JSON or text
 * format. A JSON plan is redacted and hashed exactly as query_plans' generic plans are
 * ({@link PlanDocument}: the same shape gives the same hash, the run's measurements left out);
 * a text plan keeps each node line's estimates and actuals, loses the constants of its
 * conditions ({@link LiteralRedactor}), and is hashed by those redacted lines without numbers.
 * The statement's text ({@code Query Text}) and parameters ({@code Query Parameters}) are not
 * kept; the query ID (the line's, with compute_query_id) joins the plan to its statement.
 */
final class ActualPlanReading {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** A text plan's node line: the node, its estimates, and what the run measured. */
    private static final Pattern NODE = Pattern.compile(
            "^(\\s*(?:->\\s+)?)(.*?)\\s+\\(cost=[0-9.]+\\.\\.[0-9.]+ rows=(\\d+) width=\\d+\\)"
                    + "(?: \\(actual (?:time=([0-9.]+)\\.\\.([0-9.]+) )?rows=([0-9.]+) loops=(\\d+)\\))?");

    Optional<LogEvent> read(LogEntry entry, double milliseconds, String plan, LogTexts texts) {
        String body = plan.strip();
        Optional<Reading> reading = body.startsWith("{") ? json(body) : text(body);
        return reading.map(r -> new EventRow(entry).queryId(entry)
                .put("duration_ms", milliseconds)
                .put("format", body.startsWith("{") ? "json" : "text")
                .put("plan_hash", r.hash())
                .put("estimated_rows", r.estimatedRows())
                .put("actual_rows", r.actualRows())
                .put("actual_total_ms", r.actualTotalMs())
                .put("plan", r.plan())
                .as(LogCategory.PLANS));
    }

    private record Reading(String plan, String hash, Double estimatedRows, Double actualRows, Double actualTotalMs) {
    }

    private static Optional<Reading> json(String body) {
        try {
            JsonNode explained = JSON.readTree(body);
            JsonNode root = explained.get("Plan");
            if (root == null || !root.isObject()) {
                return Optional.empty();
            }
            var wrapped = JsonNodeFactory.instance.arrayNode();
            wrapped.addObject().set("Plan", root);
            PlanDocument document = PlanDocument.of(JSON.writeValueAsString(wrapped));
            return Optional.of(new Reading(document.json(), document.hash(), number(root, "Plan Rows"),
                    number(root, "Actual Rows"), number(root, "Actual Total Time")));
        } catch (JacksonException e) {
            return Optional.empty(); // cut off at the entry bound: no plan rather than half a one
        }
    }

    private static Double number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isNumber() ? null : value.asDouble();
    }

    private static Optional<Reading> text(String body) {
        var plan = new StringBuilder();
        var shape = new StringBuilder();
        Double estimated = null;
        Double actual = null;
        Double total = null;
        for (String line : body.split("\n")) {
            if (line.startsWith("Query Text:") || line.startsWith("Query Parameters:")) {
                continue;
            }
            Matcher node = NODE.matcher(line);
            if (node.find()) {
                String redacted = LiteralRedactor.redact(node.group(2));
                shape.append(node.group(1)).append(redacted).append('\n');
                plan.append(node.group(1)).append(redacted).append(line.substring(node.end(2))).append('\n');
                if (estimated == null) {
                    estimated = Double.valueOf(node.group(3));
                    actual = node.group(6) == null ? null : Double.valueOf(node.group(6));
                    total = node.group(5) == null ? null : Double.valueOf(node.group(5));
                }
            } else {
                String redacted = LiteralRedactor.redact(line);
                plan.append(redacted).append('\n');
                if (!line.strip().startsWith("Buffers:") && !line.strip().startsWith("Rows Removed")
                        && !line.strip().startsWith("Sort Method") && !line.strip().startsWith("Worker")) {
                    shape.append(redacted).append('\n');
                }
            }
        }
        if (estimated == null) {
            return Optional.empty();
        }
        return Optional.of(new Reading(plan.toString(), sha256(shape.toString()).substring(0, 16), estimated, actual,
                total));
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
