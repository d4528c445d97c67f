package io.pgharvest.api;

import io.pgharvest.model.FieldProblem;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.util.List;
import java.util.Map;

/** Shapes that exist only to describe the API in OpenAPI; nothing is serialized from them. */
public final class ApiDocs {

    public static final String PROBLEM_JSON = "application/problem+json";
    public static final String INDEX_PARAM = "Blocking query: return once the index differs from this value"
            + " (the X-Pgharvest-Index of a previous response), or after wait";
    public static final String WAIT_PARAM = "Blocking query: longest wait for a change, e.g. 250ms, 30s, 5m;"
            + " default 5m, at most 10m, plus up to wait/16 of random jitter";

    private ApiDocs() {
    }

    /** RFC 9457 problem details as pgharvest sends them. */
    @Schema(name = "Problem", description = "RFC 9457 problem details")
    public record Problem(
            @Schema(example = "https://pgharvest.io/problems/invalid-input") URI type,
            @Schema(example = "Bad Request") String title,
            @Schema(example = "400") int status,
            @Schema(example = "The source is invalid; see errors.") String detail,
            @Schema(example = "/api/v1/sources") URI instance,
            @Schema(description = "each offending field with what is wrong with it") List<FieldProblem> errors,
            @Schema(description = "on in-use conflicts: the sources and presets that refer to the item",
                    example = "{\"sources\": [\"orders\"], \"presets\": [\"basic\"]}")
            Map<String, List<String>> usedBy,
            @Schema(description = "on stale-index conflicts: the item's current modifyIndex", example = "42")
            Long modifyIndex) {
    }
}
