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
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A generic plan as query_plans stores it: EXPLAIN's JSON with no constant left in it, and a hash
 * of the plan's shape. A generic plan has parameters where the text had them, but constants written
 * in a view, a default or a function body still show, in conditions, sort and group keys, index
 * orderings ({@code Order By} of a nearest-neighbour scan) and more fields with every version.
 * So redaction works from an allow-list: a string value is kept only under a field known to hold
 * no constant ({@link #KEPT}: node types, names of relations, indexes and aliases, strategies);
 * under a field known to hold an expression ({@link #EXPRESSIONS}) its constants become {@code $n}
 * ({@link LiteralRedactor}), so the condition still reads; any other string, a field this code
 * has never seen included, is replaced whole by {@link #REDACTED}. Numbers and booleans (the
 * planner's estimates and flags) stay. The hash leaves out the estimates (costs, rows, width), so
 * it changes when the plan does (another scan, join or index), not when statistics move; what only
 * a run measures (actual rows and times, buffers, sort methods: auto_explain's actual plans, read
 * from the server log) is left out of it too, so an actual plan of the same shape as a generic
 * plan has its hash.
 *
 * @param json the redacted plan
 * @param hash 16 hex digits of the SHA-256 of the shape
 */
public record PlanDocument(String json, String hash) {

    /** What stands for a string value under a field that is neither kept nor an expression. */
    static final String REDACTED = "(redacted)";
    /** Plan fields whose strings are EXPLAIN's own words or names of objects, never constants. */
    private static final Set<String> KEPT = Set.of("Node Type", "Strategy", "Partial Mode", "Operation",
            "Parent Relationship", "Subplan Name", "Custom Plan Provider", "Join Type", "Scan Direction",
            "Index Name", "Relation Name", "Schema", "Alias", "CTE Name", "Function Name", "Tuplestore Name",
            "Table Function Name", "Command", "Sort Method", "Sort Space Type", "Cache Mode", "Conflict Resolution",
            "Conflict Arbiter Indexes", "Sampling Method", "Trigger Name", "Constraint Name");
    /** Plan fields that hold expressions (a constant may be written in them). */
    private static final Set<String> EXPRESSIONS = Set.of("Filter", "Index Cond", "Recheck Cond", "Join Filter",
            "Hash Cond", "Merge Cond", "One-Time Filter", "TID Cond", "Output", "Sort Key", "Group Key",
            "Presorted Key", "Hash Key", "Hash Keys", "Group Keys", "Cache Key", "Function Call",
            "Table Function Call", "Run Condition", "Order By", "Window", "Repeatable Seed", "Sampling Parameters",
            "Conflict Filter", "Full-sort Groups", "Pre-sorted Groups");
    /** The planner's estimates, left out of the hash. */
    private static final Set<String> ESTIMATES = Set.of("Startup Cost", "Total Cost", "Plan Rows", "Plan Width");
    /** What EXPLAIN ANALYZE (and auto_explain) adds of one run, left out of the hash. */
    private static final Set<String> MEASURED = Set.of("Actual Startup Time", "Actual Total Time", "Actual Rows",
            "Actual Loops", "Rows Removed by Filter", "Rows Removed by Join Filter", "Rows Removed by Index Recheck",
            "Heap Fetches", "Exact Heap Blocks", "Lossy Heap Blocks", "Sort Method", "Sort Space Used",
            "Sort Space Type", "Peak Memory Usage", "Hash Buckets", "Original Hash Buckets", "Hash Batches",
            "Original Hash Batches", "Workers Launched", "Workers", "Shared Hit Blocks", "Shared Read Blocks",
            "Shared Dirtied Blocks", "Shared Written Blocks", "Local Hit Blocks", "Local Read Blocks",
            "Local Dirtied Blocks", "Local Written Blocks", "Temp Read Blocks", "Temp Written Blocks", "I/O Read Time",
            "I/O Write Time", "Shared I/O Read Time", "Shared I/O Write Time", "Local I/O Read Time",
            "Local I/O Write Time", "Temp I/O Read Time", "Temp I/O Write Time", "WAL Records", "WAL FPI",
            "WAL Bytes", "WAL Buffers Full", "Cache Hits", "Cache Misses", "Cache Evictions", "Cache Overflows",
            "Disk Usage", "HashAgg Batches", "Planned Partitions", "Storage", "Maximum Storage", "Index Searches",
            "Triggers", "Planning Time", "Execution Time", "Planning", "JIT");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** How a field's string values are published. */
    private enum Field { KEPT, EXPRESSION, REDACTED }

    /** Redacts and hashes the output of EXPLAIN (FORMAT JSON). */
    public static PlanDocument of(String explained) {
        JsonNode plan = JSON.readTree(explained);
        plan = redact(plan, Field.REDACTED);
        String json = JSON.writeValueAsString(plan);
        JsonNode shape = plan.deepCopy();
        dropEstimates(shape);
        return new PlanDocument(json, sha256(JSON.writeValueAsString(shape)).substring(0, 16));
    }

    /**
     * {@code node} redacted in place (a string value is returned replaced).
     *
     * @param field how a string is published here: its field's, also inside arrays under that field
     */
    private static JsonNode redact(JsonNode node, Field field) {
        if (node instanceof ObjectNode object) {
            for (String name : object.propertyNames()) {
                object.set(name, redact(object.get(name), fieldOf(name)));
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, redact(array.get(i), field));
            }
        } else if (node.isString()) {
            return switch (field) {
                case KEPT -> node;
                case EXPRESSION -> JsonNodeFactory.instance.stringNode(LiteralRedactor.redact(node.asString()));
                case REDACTED -> JsonNodeFactory.instance.stringNode(REDACTED);
            };
        }
        return node;
    }

    private static Field fieldOf(String name) {
        if (KEPT.contains(name)) {
            return Field.KEPT;
        }
        return EXPRESSIONS.contains(name) ? Field.EXPRESSION : Field.REDACTED;
    }

    private static void dropEstimates(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(ESTIMATES);
            object.remove(MEASURED);
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
