package io.pgharvest.insights;

import io.pgharvest.model.sql.LiteralRedactor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A generic plan as query_plans stores it: EXPLAIN's JSON with the constants of every expression
 * replaced by {@code $n} ({@link LiteralRedactor}: a generic plan has parameters where the text had
 * them, but constants written in the text, in a view or in a default still show in conditions), and
 * a hash of the plan's shape. The hash leaves out the planner's estimates (costs, rows, width), so
 * it changes when the plan does (another scan, join or index), not when statistics move.
 *
 * @param json the redacted plan
 * @param hash 16 hex digits of the SHA-256 of the shape
 */
record PlanDocument(String json, String hash) {

    /** Plan fields that hold expressions (a constant may be written in them). */
    private static final Set<String> EXPRESSIONS = Set.of("Filter", "Index Cond", "Recheck Cond", "Join Filter",
            "Hash Cond", "Merge Cond", "One-Time Filter", "TID Cond", "Output", "Sort Key", "Group Key",
            "Presorted Key", "Hash Key", "Cache Key", "Function Call", "Table Function Call", "Run Condition",
            "Storage", "Repeatable Seed", "Sampling Parameters", "Conflict Filter", "Full-sort Groups",
            "Pre-sorted Groups");
    /** The planner's estimates, left out of the hash. */
    private static final Set<String> ESTIMATES = Set.of("Startup Cost", "Total Cost", "Plan Rows", "Plan Width");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Redacts and hashes the output of EXPLAIN (FORMAT JSON). */
    static PlanDocument of(String explained) {
        JsonNode plan = JSON.readTree(explained);
        redact(plan, false);
        String json = JSON.writeValueAsString(plan);
        JsonNode shape = plan.deepCopy();
        dropEstimates(shape);
        return new PlanDocument(json, sha256(JSON.writeValueAsString(shape)).substring(0, 16));
    }

    private static void redact(JsonNode node, boolean expression) {
        if (node instanceof ObjectNode object) {
            for (String name : object.propertyNames()) {
                JsonNode value = object.get(name);
                if (value.isString() && EXPRESSIONS.contains(name)) {
                    object.put(name, LiteralRedactor.redact(value.asString()));
                } else {
                    redact(value, EXPRESSIONS.contains(name));
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                JsonNode item = array.get(i);
                if (expression && item.isString()) {
                    array.set(i, array.stringNode(LiteralRedactor.redact(item.asString())));
                } else {
                    redact(item, expression);
                }
            }
        }
    }

    private static void dropEstimates(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(ESTIMATES);
            object.forEach(PlanDocument::dropEstimates);
        } else if (node instanceof ArrayNode array) {
            array.forEach(PlanDocument::dropEstimates);
        }
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
