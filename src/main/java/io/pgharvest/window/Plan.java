package io.pgharvest.window;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;

/**
 * The latest generic plan the window holds for one statement in one database (rows of
 * {@code query_plans}), and the plan before it when its hash differed, so a change shows.
 *
 * @param dbname the database
 * @param queryid the statement's query id
 * @param plan EXPLAIN's JSON as query_plans stored it (constants redacted), or null when the window
 *     did not keep it ({@code omitted} says why); checked to be JSON when recorded
 * @param hash the plan's shape hash ({@code plan_hash})
 * @param readAt when this plan was read
 * @param previousHash the hash of the plan read before it, when that differed; null when the window
 *     saw no other plan of the statement
 * @param previousReadAt when that other plan was last read
 * @param changedAt when the window first read the current hash after the other one: the change
 *     happened between previousReadAt and changedAt
 * @param omitted why {@code plan} is null (larger than the per-plan bound, the memory bound reached,
 *     not JSON), or null
 */
public record Plan(String dbname, String queryid,
        @Schema(description = "EXPLAIN (FORMAT JSON)'s output, constants redacted; null when omitted",
                type = "array", implementation = Object.class) @JsonRawValue String plan,
        String hash, Instant readAt, String previousHash, Instant previousReadAt, Instant changedAt, String omitted) {

    /** What the window reserves for one plan: the records and strings (2 bytes a character, as a bound). */
    long bytes() {
        return 256 + 2L * (length(dbname) + length(queryid) + length(plan) + length(hash) + length(previousHash)
                + length(omitted));
    }

    /** The same plan without its JSON. */
    Plan withoutJson(String why) {
        return new Plan(dbname, queryid, null, hash, readAt, previousHash, previousReadAt, changedAt, why);
    }

    private static int length(String text) {
        return text == null ? 0 : text.length();
    }
}
