package io.pgharvest.store.state;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Value assertions on metric rows that collect problems instead of stopping at the first. */
final class ValueChecks {

    private final String role;
    private final Map<String, List<Map<String, Object>>> results;
    private final List<String> problems;

    ValueChecks(String role, Map<String, List<Map<String, Object>>> results, List<String> problems) {
        this.role = role;
        this.results = results;
        this.problems = problems;
    }

    /**
     * The row of {@code metric} whose {@code keyColumn} is {@code key} (any row when
     * {@code keyColumn} is null) has {@code column} = {@code expected} (compared as text; null
     * expected means any non-null value).
     */
    void row(String metric, String keyColumn, Object key, String column, Object expected) {
        find(metric, keyColumn, key).ifPresent(row -> {
            Object actual = row.get(column);
            boolean matches = expected == null ? actual != null
                    : Objects.equals(String.valueOf(actual), String.valueOf(expected));
            if (!matches) {
                problems.add(role + ": " + metric + " " + describe(keyColumn, key) + ": " + column + " is " + actual
                        + ", expected " + (expected == null ? "a value" : expected));
            }
        });
    }

    /** Like {@link #row} for a number that must lie in [{@code min}, {@code max}]. */
    void number(String metric, String keyColumn, Object key, String column, double min, double max) {
        find(metric, keyColumn, key).ifPresent(row -> {
            Object actual = row.get(column);
            if (!(actual instanceof Number number) || number.doubleValue() < min || number.doubleValue() > max) {
                problems.add(role + ": " + metric + " " + describe(keyColumn, key) + ": " + column + " is " + actual
                        + ", expected between " + min + " and " + max);
            }
        });
    }

    /** Some row of {@code metric} has a {@code column} containing {@code text}. */
    void contains(String metric, String column, String text) {
        List<Map<String, Object>> rows = results.get(metric);
        if (rows == null) {
            problems.add(role + ": " + metric + " was not run");
        } else if (rows.stream().noneMatch(row -> String.valueOf(row.get(column)).contains(text))) {
            problems.add(role + ": no row of " + metric + " has '" + text + "' in " + column + "; rows: " + rows);
        }
    }

    private Optional<Map<String, Object>> find(String metric, String keyColumn, Object key) {
        List<Map<String, Object>> rows = results.get(metric);
        if (rows == null) {
            problems.add(role + ": " + metric + " was not run");
            return Optional.empty();
        }
        Optional<Map<String, Object>> row = rows.stream()
                .filter(r -> keyColumn == null || String.valueOf(key).equals(String.valueOf(r.get(keyColumn))))
                .findFirst();
        if (row.isEmpty()) {
            problems.add(role + ": " + metric + " has no row " + describe(keyColumn, key) + "; rows: " + rows);
        }
        return row;
    }

    private static String describe(String keyColumn, Object key) {
        return keyColumn == null ? "(first row)" : "with " + keyColumn + " = " + key;
    }
}
