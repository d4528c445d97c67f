package io.pgharvest.kind;

import java.sql.SQLException;

/** A metric's SQL is not one reading statement: it is never sent ({@link SourceSession#refusal}). */
public final class NotReadingException extends SQLException {
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    public NotReadingException(String metric, String problem) {
        super("metric " + metric + " refused, its SQL " + problem, INSUFFICIENT_PRIVILEGE);
    }
}
