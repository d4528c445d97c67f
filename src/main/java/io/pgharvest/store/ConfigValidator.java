package io.pgharvest.store;

import io.pgharvest.metric.MetricDefinition;
import io.pgharvest.metric.Preset;
import io.pgharvest.source.ConnectionString;
import io.pgharvest.source.InvalidConnectionStringException;
import io.pgharvest.source.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.springframework.stereotype.Component;

/**
 * Every rule a source, metric or preset must satisfy, in one place: the store checks each write
 * with it, start-up checks the files with it, and importers should too. Each problem names its
 * field in the API's spelling ({@code connStr}, {@code metrics.db_stats}, {@code sqls.14}).
 *
 * <p>Naming rules:
 * <ul>
 *   <li>metric, preset and storage names are SQL-safe identifiers: {@value #IDENTIFIER_REGEX}
 *       (they become table and series names);</li>
 *   <li>source names: {@value #SOURCE_NAME_REGEX} — letters, digits, {@code _}, {@code -} and
 *       {@code .}, starting with a letter or digit, at most 63 characters (they appear in URLs,
 *       file names, tags and the {@code dbname} column).</li>
 * </ul>
 */
@Component
public final class ConfigValidator {

    public static final String IDENTIFIER_REGEX = "[a-z_][a-z0-9_]{0,62}";
    public static final String SOURCE_NAME_REGEX = "[A-Za-z0-9][A-Za-z0-9_.-]{0,62}";
    /** Lowest and highest key accepted in a metric's {@code sqls} map. */
    public static final int MIN_MAJOR_VERSION = 9;
    public static final int MAX_MAJOR_VERSION = 99;
    public static final int MAX_STATEMENT_TIMEOUT_SECONDS = 86_400;

    private static final Pattern IDENTIFIER = Pattern.compile(IDENTIFIER_REGEX);
    private static final Pattern SOURCE_NAME = Pattern.compile(SOURCE_NAME_REGEX);

    /** Checks a source against the metrics and presets of {@code config}. */
    public List<FieldProblem> checkSource(Source source, ConfigSnapshot config) {
        var problems = new ArrayList<FieldProblem>();
        if (!SOURCE_NAME.matcher(source.name()).matches()) {
            problems.add(new FieldProblem("name", "must be 1 to 63 letters, digits, '_', '-' or '.',"
                    + " starting with a letter or digit"));
        }
        checkConnStr(source.connStr(), problems);
        checkPresetName("preset", source.preset(), config, problems);
        checkSelection("metrics", source.metrics(), config, problems);
        checkPresetName("standbyPreset", source.standbyPreset(), config, problems);
        checkSelection("standbyMetrics", source.standbyMetrics(), config, problems);
        checkRegex("includePattern", source.includePattern(), problems);
        checkRegex("excludePattern", source.excludePattern(), problems);
        source.tags().forEach((key, value) -> {
            if (key.isBlank()) {
                problems.add(new FieldProblem("tags", "tag names must not be blank"));
            } else if (value == null) {
                problems.add(new FieldProblem("tags." + key, "needs a value"));
            }
        });
        return problems;
    }

    public List<FieldProblem> checkMetric(MetricDefinition metric) {
        var problems = new ArrayList<FieldProblem>();
        checkIdentifier("name", metric.name(), problems);
        if (metric.sqls().isEmpty()) {
            problems.add(new FieldProblem("sqls", "needs at least one query, keyed by the lowest PostgreSQL major"
                    + " version it works on"));
        }
        metric.sqls().forEach((version, sql) -> {
            if (version == null || version < MIN_MAJOR_VERSION || version > MAX_MAJOR_VERSION) {
                problems.add(new FieldProblem("sqls." + version, notAMajorVersion()));
            } else if (sql == null || sql.isBlank()) {
                problems.add(new FieldProblem("sqls." + version, "the query must not be empty"));
            }
        });
        for (int i = 0; i < metric.gauges().size(); i++) {
            String gauge = metric.gauges().get(i);
            if (gauge == null || gauge.isBlank()) {
                problems.add(new FieldProblem("gauges[" + i + "]", "must be a column name or '*'"));
            }
        }
        if (metric.storageName() != null) {
            checkIdentifier("storageName", metric.storageName(), problems);
        }
        Integer timeout = metric.statementTimeoutSeconds();
        if (timeout != null && (timeout < 1 || timeout > MAX_STATEMENT_TIMEOUT_SECONDS)) {
            problems.add(new FieldProblem("statementTimeoutSeconds",
                    "must be between 1 and " + MAX_STATEMENT_TIMEOUT_SECONDS + " seconds, or absent for the default"));
        }
        return problems;
    }

    /** Checks a preset against the metrics of {@code config}. */
    public List<FieldProblem> checkPreset(Preset preset, ConfigSnapshot config) {
        var problems = new ArrayList<FieldProblem>();
        checkIdentifier("name", preset.name(), problems);
        if (preset.metrics().isEmpty()) {
            problems.add(new FieldProblem("metrics", "a preset needs at least one metric"));
        }
        preset.metrics().forEach((metric, interval) -> {
            String field = "metrics." + metric;
            if (!config.metrics().containsKey(metric)) {
                problems.add(new FieldProblem(field, "unknown metric '" + metric + "'"));
            }
            if (interval == null || interval <= 0) {
                problems.add(new FieldProblem(field, "the interval must be a positive number of seconds"));
            }
        });
        return problems;
    }

    /** Parses a {@code sqls} key given as text (JSON object keys are strings). */
    public static OptionalInt parseMajorVersion(String key) {
        if (key == null || !key.matches("\\d{1,2}")) {
            return OptionalInt.empty();
        }
        int version = Integer.parseInt(key);
        return version < MIN_MAJOR_VERSION || version > MAX_MAJOR_VERSION ? OptionalInt.empty() : OptionalInt.of(version);
    }

    public static String notAMajorVersion() {
        return "not a PostgreSQL major version (" + MIN_MAJOR_VERSION + " to " + MAX_MAJOR_VERSION + ")";
    }

    private static void checkConnStr(String connStr, List<FieldProblem> problems) {
        try {
            ConnectionString parsed = ConnectionString.parse(connStr);
            if (parsed.password().filter(ConnectionString.MASK::equals).isPresent()) {
                problems.add(new FieldProblem("connStr", "the password is the mask " + ConnectionString.MASK
                        + " and there is no stored password to keep; give the real password"));
            }
        } catch (InvalidConnectionStringException e) {
            problems.add(new FieldProblem("connStr", e.getMessage()));
        }
    }

    private static void checkPresetName(String field, String preset, ConfigSnapshot config, List<FieldProblem> problems) {
        if (preset != null && !config.presets().containsKey(preset)) {
            problems.add(new FieldProblem(field, "unknown preset '" + preset + "'"));
        }
    }

    private static void checkSelection(String field, Map<String, Integer> selection, ConfigSnapshot config,
            List<FieldProblem> problems) {
        selection.forEach((metric, interval) -> {
            String entry = field + "." + metric;
            if (!config.metrics().containsKey(metric)) {
                problems.add(new FieldProblem(entry, "unknown metric '" + metric + "'"));
            }
            if (interval == null || interval < 0) {
                problems.add(new FieldProblem(entry, "the interval must be a positive number of seconds,"
                        + " or 0 to leave out a metric of the preset"));
            }
        });
    }

    private static void checkRegex(String field, String regex, List<FieldProblem> problems) {
        if (regex == null) {
            return;
        }
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            problems.add(new FieldProblem(field, "not a valid regular expression: " + e.getDescription()));
        }
    }

    private static void checkIdentifier(String field, String name, List<FieldProblem> problems) {
        if (!IDENTIFIER.matcher(name).matches()) {
            problems.add(new FieldProblem(field, "must be 1 to 63 lower-case letters, digits or '_',"
                    + " not starting with a digit"));
        }
    }
}
