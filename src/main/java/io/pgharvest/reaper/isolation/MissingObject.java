package io.pgharvest.reaper.isolation;

import java.sql.SQLException;
import java.util.Set;

/**
 * Whether a metric failed because an object its SQL names does not exist on the server: an
 * extension that is not installed (pg_buffercache, pgstattuple, pg_qualstats), a view, column or
 * function of another PostgreSQL version, a schema that is not there. Told by the server's
 * SQLSTATE, not by the message (which may be translated).
 *
 * <p>Such a metric will not succeed until an operator changes the server (CREATE EXTENSION, an
 * upgrade), and each attempt writes an ERROR with the statement's text to the server's log. The
 * solo lane therefore retries it at the back-off's cap from its first failure ({@link SoloLane#fail})
 * rather than at its next regular run: in a fleet whose databases lack a few extensions those
 * retries were most of a collector's round trips in its first minutes.
 */
public final class MissingObject {

    /**
     * undefined_table, undefined_function, undefined_column, undefined_object,
     * invalid_schema_name, undefined_file (an extension's library that is not installed).
     */
    private static final Set<String> STATES = Set.of("42P01", "42883", "42703", "42704", "3F000", "58P01");

    private MissingObject() {
    }

    public static boolean causedBy(SQLException failure) {
        return failure.getSQLState() != null && STATES.contains(failure.getSQLState());
    }
}
