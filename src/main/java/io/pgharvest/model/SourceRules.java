package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.ParsedConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Every rule a {@link Source} must satisfy: the store checks each write with it, start-up checks
 * the files with it, and importers do too. Each problem names its field in the API's spelling
 * ({@code connStr}, {@code metrics.db_stats}).
 *
 * <p>Source names: {@value #SOURCE_NAME_REGEX} — letters, digits, {@code _}, {@code -} and
 * {@code .}, starting with a letter or digit, at most 63 characters (they appear in URLs, file
 * names, tags and the {@code dbname} column).
 */
public final class SourceRules {

    /** Size limits: what every measurement, label or log line carries stays small. */
    public static final int MAX_TAGS = 32;
    public static final int MAX_TAG_NAME = 63;
    public static final int MAX_TAG_VALUE = 256;
    public static final int MAX_CONN_STR = 4096;

    public static final String SOURCE_NAME_REGEX = "[A-Za-z0-9][A-Za-z0-9_.-]{0,62}";

    private static final Pattern SOURCE_NAME = Pattern.compile(SOURCE_NAME_REGEX);

    private SourceRules() {
    }

    /** Every problem of {@code source}, checked against the metrics and presets of {@code config}. */
    public static List<FieldProblem> check(Source source, ConfigSnapshot config) {
        var problems = new ArrayList<FieldProblem>();
        if (!SOURCE_NAME.matcher(source.name()).matches()) {
            problems.add(new FieldProblem("name", "must be 1 to 63 letters, digits, '_', '-' or '.',"
                    + " starting with a letter or digit"));
        }
        checkConnStr(source.connection(), problems);
        checkPresetName("preset", source.preset(), config, problems);
        checkSelection("metrics", source.metrics(), config, problems);
        checkPresetName("standbyPreset", source.standbyPreset(), config, problems);
        checkSelection("standbyMetrics", source.standbyMetrics(), config, problems);
        source.kind().rules().checkUse(source, config, problems);
        checkPattern("includePattern", source, source.includePattern(), problems);
        checkPattern("excludePattern", source, source.excludePattern(), problems);
        if (source.tags().size() > MAX_TAGS) {
            problems.add(new FieldProblem("tags", "at most " + MAX_TAGS + " tags; every measurement carries them"));
        }
        source.tags().forEach((key, value) -> {
            if (key.isBlank()) {
                problems.add(new FieldProblem("tags", "tag names must not be blank"));
            } else if (key.length() > MAX_TAG_NAME) {
                problems.add(new FieldProblem("tags", "tag names have at most " + MAX_TAG_NAME + " characters"));
            } else if (value == null) {
                problems.add(new FieldProblem("tags." + key, "needs a value"));
            } else if (value.length() > MAX_TAG_VALUE) {
                problems.add(new FieldProblem("tags." + key, "at most " + MAX_TAG_VALUE
                        + " characters; it is copied into every measurement and Prometheus label"));
            }
        });
        return problems;
    }

    private static void checkConnStr(SourceConnection connection, List<FieldProblem> problems) {
        String connStr = connection.text();
        if (connStr.isBlank()) {
            problems.add(new FieldProblem("connStr", "is required"));
            return;
        }
        if (connStr.length() > MAX_CONN_STR) {
            problems.add(new FieldProblem("connStr", "at most " + MAX_CONN_STR + " characters"));
            return;
        }
        connection.problem().ifPresent(e -> problems.add(new FieldProblem("connStr", e.getMessage())));
        connection.parsed().filter(ParsedConnection::passwordIsMask).ifPresent(parsed -> problems.add(
                new FieldProblem("connStr", "a password is the mask " + ConnectionString.MASK
                        + " and there is no stored password to keep; give the real password")));
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

    /** Database name patterns select what a discovering kind collects; no other kind has a use for them. */
    private static void checkPattern(String field, Source source, String regex, List<FieldProblem> problems) {
        if (regex == null) {
            return;
        }
        if (!source.kind().rules().selectsDatabases()) {
            problems.add(new FieldProblem(field, "database name patterns are only used by sources of kind "
                    + SourceKind.values().stream().filter(kind -> kind.rules().selectsDatabases())
                            .map(kind -> "'" + kind.label() + "'").collect(Collectors.joining(" or "))
                    + "; leave it out"));
            return;
        }
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            problems.add(new FieldProblem(field, "not a valid regular expression: " + e.getDescription()));
        }
    }
}
