package io.pgharvest.model;

import io.pgharvest.model.sql.MetricSql;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Every rule a {@link MetricDefinition} must satisfy. Metric and storage names are SQL-safe
 * identifiers ({@value Identifiers#IDENTIFIER_REGEX}): they become table and series names.
 */
public final class MetricRules {

    /** Lowest and highest key accepted in a metric's {@code sqls} map. */
    public static final int MIN_MAJOR_VERSION = 9;
    public static final int MAX_MAJOR_VERSION = 99;
    public static final int MAX_STATEMENT_TIMEOUT_SECONDS = 86_400;
    /** Size limits of a metric's texts. */
    public static final int MAX_SQL_CHARS = 65_536;
    public static final int MAX_DESCRIPTION_CHARS = 4_096;

    private MetricRules() {
    }

    /** Every problem of {@code metric}, each naming its field ({@code sqls.14}, {@code gauges[0]}). */
    public static List<FieldProblem> check(MetricDefinition metric) {
        var problems = new ArrayList<FieldProblem>();
        Identifiers.check("name", metric.name(), problems);
        if (metric.isNative()) {
            checkNative(metric, problems);
        } else if (metric.sqls().isEmpty()) {
            problems.add(new FieldProblem("sqls", "needs at least one query, keyed by the lowest PostgreSQL major"
                    + " version it works on"));
        }
        metric.sqls().forEach((version, sql) -> {
            if (version == null || !isSqlKey(version)) {
                problems.add(new FieldProblem("sqls." + version, notAMajorVersion()));
            } else if (sql != null && sql.length() > MAX_SQL_CHARS) {
                problems.add(new FieldProblem("sqls." + version, "at most " + MAX_SQL_CHARS + " characters"));
            } else {
                var problem = version < MIN_MAJOR_VERSION ? MetricSql.problemOnConsole(sql) : MetricSql.problem(sql);
                problem.ifPresent(why -> problems.add(new FieldProblem("sqls." + version, why)));
            }
        });
        metric.instanceSqls().forEach((version, sql) -> {
            String field = "instanceSqls." + version;
            if (version == null || version < MIN_MAJOR_VERSION || version > MAX_MAJOR_VERSION) {
                problems.add(new FieldProblem(field, notAMajorVersion()));
            } else if (!metric.sqls().containsKey(version)) {
                problems.add(new FieldProblem(field, "an instance-wide variant replaces the per-database query of the"
                        + " same version; sqls has no key " + version));
            } else if (sql != null && sql.length() > MAX_SQL_CHARS) {
                problems.add(new FieldProblem(field, "at most " + MAX_SQL_CHARS + " characters"));
            } else if (sql != null && !sql.contains(MetricDefinition.FAN_OUT_KEY)) {
                problems.add(new FieldProblem(field, "must return a " + MetricDefinition.FAN_OUT_KEY
                        + " column naming each row's database"));
            } else {
                MetricSql.problem(sql).ifPresent(why -> problems.add(new FieldProblem(field, why)));
            }
        });
        if (metric.instanceLevel() && !metric.instanceSqls().isEmpty()) {
            problems.add(new FieldProblem("instanceSqls", "an instance-level metric is already fetched once per"
                    + " instance; an instance-wide variant is for per-database metrics"));
        }
        if (metric.description().length() > MAX_DESCRIPTION_CHARS) {
            problems.add(new FieldProblem("description", "at most " + MAX_DESCRIPTION_CHARS + " characters"));
        }
        for (int i = 0; i < metric.gauges().size(); i++) {
            String gauge = metric.gauges().get(i);
            if (gauge == null || gauge.isBlank()) {
                problems.add(new FieldProblem("gauges[" + i + "]", "must be a column name or '*'"));
            }
        }
        if (metric.storageName() != null) {
            Identifiers.check("storageName", metric.storageName(), problems);
        }
        Integer timeout = metric.statementTimeoutSeconds();
        if (timeout != null && (timeout < 1 || timeout > MAX_STATEMENT_TIMEOUT_SECONDS)) {
            problems.add(new FieldProblem("statementTimeoutSeconds",
                    "must be between 1 and " + MAX_STATEMENT_TIMEOUT_SECONDS + " seconds, or absent for the default"));
        }
        return problems;
    }

    /**
     * A native metric names a known implementation and carries nothing only SQL metrics act on:
     * pgharvest's code collects it, so SQL, an instance-wide variant, an init query, a statement
     * timeout or the instance-level flag would be settings nobody reads.
     */
    private static void checkNative(MetricDefinition metric, List<FieldProblem> problems) {
        if (!NativeNames.isKnown(metric.nativeName())) {
            problems.add(new FieldProblem("native", "unknown native implementation '" + metric.nativeName()
                    + "'; known: " + String.join(", ", NativeNames.KNOWN.keySet())));
        }
        String why = " does not apply to a native metric (collected by pgharvest's code, not SQL)";
        if (!metric.sqls().isEmpty()) {
            problems.add(new FieldProblem("sqls", "must be empty:" + why.replaceFirst(" does", " SQL does")));
        }
        if (!metric.instanceSqls().isEmpty()) {
            problems.add(new FieldProblem("instanceSqls", "must be empty: an instance-wide variant" + why));
        }
        if (metric.initSql() != null && !metric.initSql().isBlank()) {
            problems.add(new FieldProblem("initSql", "must be empty: an init query" + why));
        }
        if (metric.statementTimeoutSeconds() != null) {
            problems.add(new FieldProblem("statementTimeoutSeconds", "must be absent: a statement timeout" + why));
        }
        if (metric.instanceLevel()) {
            problems.add(new FieldProblem("instanceLevel", "must be false: a native metric is collected per source"));
        }
    }

    /** Parses a {@code sqls} key given as text (JSON object keys are strings). */
    public static OptionalInt parseMajorVersion(String key) {
        if (key == null || !key.matches("\\d{1,2}")) {
            return OptionalInt.empty();
        }
        int version = Integer.parseInt(key);
        return isSqlKey(version) ? OptionalInt.of(version) : OptionalInt.empty();
    }

    /**
     * A PostgreSQL major version, or the key of a kind whose SQL is not keyed by version
     * ({@link KindRules#sqlKey()}: the poolers' keys pgwatch numbers below the major versions).
     */
    public static boolean isSqlKey(int key) {
        return key >= MIN_MAJOR_VERSION && key <= MAX_MAJOR_VERSION
                || SourceKind.values().stream().anyMatch(kind -> kind.rules().sqlKey().equals(OptionalInt.of(key)));
    }

    public static String notAMajorVersion() {
        List<String> kindKeys = SourceKind.values().stream().filter(kind -> kind.rules().sqlKey().isPresent())
                .map(kind -> kind.rules().sqlKey().getAsInt() + " (" + kind.label() + ")").toList();
        String keys = kindKeys.size() <= 1 ? String.join("", kindKeys)
                : String.join(", ", kindKeys.subList(0, kindKeys.size() - 1)) + " or " + kindKeys.getLast();
        return "not a PostgreSQL major version (" + MIN_MAJOR_VERSION + " to " + MAX_MAJOR_VERSION + ")"
                + (keys.isEmpty() ? "" : ", nor " + keys);
    }
}
