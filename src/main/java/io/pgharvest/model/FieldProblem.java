package io.pgharvest.model;

import java.util.Objects;

/**
 * One thing wrong with an input, named by its field path in the API's camelCase spelling, e.g.
 * {@code connStr}, {@code metrics.db_stats} or {@code sqls.14}. Messages never contain secrets.
 */
public record FieldProblem(String field, String message) {

    public FieldProblem {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }
}
