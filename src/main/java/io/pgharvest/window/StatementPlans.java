package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The latest plan of each statement of a source ({@code query_plans} rows, one per database and
 * query id) with the hash it replaced, the most recently read {@code capacity} of them. A plan's
 * JSON is kept only up to {@code maxPlanBytes} (counted as the budget counts, 2 bytes a
 * character) and only when the window's {@link MemoryBudget} has room; otherwise the plan's hash and
 * times are kept without it, so a change still shows. Not thread-safe: its {@link SourceWindow}
 * guards it.
 */
final class StatementPlans {

    static final String METRIC = "query_plans";
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private final int capacity;
    private final long maxPlanBytes;
    private final MemoryBudget budget;
    /** Oldest read first: a plan read again moves to the end. */
    private final LinkedHashMap<Key, Plan> plans = new LinkedHashMap<>();

    private record Key(String dbname, String queryid) {
    }

    StatementPlans(int capacity, long maxPlanBytes, MemoryBudget budget) {
        this.capacity = capacity;
        this.maxPlanBytes = maxPlanBytes;
        this.budget = budget;
    }

    void record(Measurement m) {
        for (Measurement.Row row : m.rows()) {
            String queryid = row.tags().get("queryid");
            if (queryid != null && row.values().get("plan_hash") instanceof String hash) {
                String dbname = row.tags().getOrDefault("dbname", "");
                keep(new Key(dbname, queryid), hash, row.values().get("plan") instanceof String json ? json : null,
                        m.time(), Replaced.of(row, hash));
            }
        }
    }

    /**
     * The shape a plan row says it replaced ({@code previous_plan_hash}, {@code previous_planned_at}:
     * query_plans keeps its shapes across restarts, so a change shows although the window holds no
     * plan before it); null when the row says none.
     */
    private record Replaced(String hash, Instant plannedAt) {

        static Replaced of(Measurement.Row row, String hash) {
            if (!(row.values().get("previous_plan_hash") instanceof String previous) || previous.equals(hash)) {
                return null;
            }
            Instant at = null;
            if (row.values().get("previous_planned_at") instanceof String text) {
                try {
                    at = Instant.parse(text);
                } catch (DateTimeParseException e) {
                    at = null; // a custom metric's column of that name: the change shows without the time
                }
            }
            return new Replaced(previous, at);
        }
    }

    private void keep(Key key, String hash, String json, Instant readAt, Replaced replaced) {
        Plan old = plans.remove(key);
        if (old != null) {
            budget.release(old.bytes());
        }
        Plan plan = old == null
                ? replaced == null ? new Plan(key.dbname(), key.queryid(), json, hash, readAt, null, null, null, null)
                        : new Plan(key.dbname(), key.queryid(), json, hash, readAt, replaced.hash(), replaced.plannedAt(),
                                readAt, null)
                : old.hash().equals(hash)
                        ? new Plan(key.dbname(), key.queryid(), json, hash, readAt, old.previousHash(), old.previousReadAt(),
                                old.changedAt(), null)
                        : new Plan(key.dbname(), key.queryid(), json, hash, readAt, old.hash(), old.readAt(), readAt, null);
        if (json == null) {
            plan = plan.withoutJson("the row held no plan");
        } else if (2L * json.length() > maxPlanBytes) {
            plan = plan.withoutJson("larger than the window keeps per plan (" + json.length()
                    + " characters; pgharvest.window.max-plan-size is " + maxPlanBytes + " bytes at 2 a character)");
        } else {
            String written = rewritten(json);
            plan = written == null ? plan.withoutJson("not a JSON array or object")
                    : new Plan(plan.dbname(), plan.queryid(), written, hash, readAt, plan.previousHash(),
                            plan.previousReadAt(), plan.changedAt(), null);
        }
        if (plans.size() >= capacity && !plans.isEmpty()) {
            var eldest = plans.entrySet().iterator().next();
            budget.release(eldest.getValue().bytes());
            plans.remove(eldest.getKey());
        }
        if (capacity == 0) {
            return;
        }
        if (!budget.reserve(plan.bytes())) {
            plan = plan.withoutJson("the window's memory bound (pgharvest.window.max-memory) was reached");
            if (!budget.reserve(plan.bytes())) {
                return;
            }
        }
        plans.put(key, plan);
    }

    /**
     * The text as our own writer writes it when it is one JSON array or object, else null: the API
     * embeds a plan as JSON, not as a string, so what it embeds must be JSON this process wrote (a
     * custom metric could name itself query_plans and return anything).
     */
    private static String rewritten(String text) {
        try {
            JsonNode tree = JSON.readTree(text);
            return tree != null && tree.isContainer() ? JSON.writeValueAsString(tree) : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    /** The plans of a query id, one per database that has one, by database. */
    List<Plan> of(String queryid) {
        var found = new ArrayList<Plan>();
        for (Plan plan : plans.values()) {
            if (plan.queryid().equals(queryid)) {
                found.add(plan);
            }
        }
        found.sort(Comparator.comparing(Plan::dbname));
        return found;
    }

    /**
     * When the plan of {@code queryid} in {@code dbname} last changed (another hash read after the
     * one before), or null when the window saw no change of it.
     */
    Instant changedAt(String dbname, String queryid) {
        Plan plan = plans.get(new Key(dbname, queryid));
        return plan == null ? null : plan.changedAt();
    }

    /** Releases every plan (the source left the window). */
    void clear() {
        plans.values().forEach(plan -> budget.release(plan.bytes()));
        plans.clear();
    }
}
