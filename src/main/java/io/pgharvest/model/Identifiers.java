package io.pgharvest.model;

import java.util.List;
import java.util.regex.Pattern;

/** The SQL-safe identifiers that metric, storage and preset names must be. */
final class Identifiers {

    static final String IDENTIFIER_REGEX = "[a-z_][a-z0-9_]{0,62}";

    /**
     * Preset names may also hold '-' (pgwatch ships {@code postgres-exporter-basic}): they are
     * never table or series names, only keys sources refer to.
     */
    static final String PRESET_NAME_REGEX = "[a-z_][a-z0-9_-]{0,62}";

    private static final Pattern IDENTIFIER = Pattern.compile(IDENTIFIER_REGEX);
    private static final Pattern PRESET_NAME = Pattern.compile(PRESET_NAME_REGEX);

    private Identifiers() {
    }

    static void check(String field, String name, List<FieldProblem> problems) {
        if (!IDENTIFIER.matcher(name).matches()) {
            problems.add(new FieldProblem(field, "must be 1 to 63 lower-case letters, digits or '_',"
                    + " not starting with a digit"));
        }
    }

    static void checkPresetName(String field, String name, List<FieldProblem> problems) {
        if (!PRESET_NAME.matcher(name).matches()) {
            problems.add(new FieldProblem(field, "must be 1 to 63 lower-case letters, digits, '_' or '-',"
                    + " not starting with a digit or '-'"));
        }
    }
}
