package io.pgharvest.fanout;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRules;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Derives the instance-wide variant of an imported per-database metric where the rewrite is
 * mechanical and provably gives the same rows: a query of the form
 * {@code select <columns> from pg_stat_database[_conflicts] where datname = current_database()}
 * whose column list reads nothing but that view's row (no sub-query, no function of the current
 * database or session). Those views hold exactly one row per database, so the variant
 * {@code select datname::text as fan_out_dbname, <columns> from <view> where datname is not null}
 * returns, for each database, the row its own query would. Anything else (joins, aggregates over
 * pg_stat_activity, filters, per-database sub-queries such as pgwatch's db_stats) is left to run
 * per database: an aggregate's row for a database without rows, or a LIMIT, cannot be rewritten
 * without understanding the query.
 */
public final class FanOutRewrite {

    private static final Pattern SIMPLE_VIEW_QUERY = Pattern.compile(
            "^\\s*select\\s+(?<comment>/\\*[^*]*\\*/\\s*)?(?<columns>.+?)\\s+from\\s+"
                    + "(?<view>(?:pg_catalog\\.)?pg_stat_database(?:_conflicts)?)\\s+where\\s+datname\\s*=\\s*"
                    + "current_database\\(\\)\\s*;?\\s*$",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    /** Column lists that read more than the view's row: sub-queries, the session's database or backend. */
    private static final Pattern NOT_ROW_LOCAL = Pattern.compile(
            "\\b(select|from|current_database|pg_backend_pid|current_user|session_user|"
                    + MetricDefinition.FAN_OUT_KEY + ")\\b|--|/\\*",
            Pattern.CASE_INSENSITIVE);

    /** {@code extract(field from ...)}: a "from" that reads no table. */
    private static final Pattern EXTRACT_FROM = Pattern.compile("\\bextract\\s*\\(\\s*\\w+\\s+from\\b",
            Pattern.CASE_INSENSITIVE);

    /**
     * application_name of the reapers' monitoring sessions: the lateral variant finds each
     * database's collecting session by it (endpoint.SessionSettings uses this constant).
     */
    public static final String COLLECTOR_APPLICATION_NAME = "pgharvest";

    private FanOutRewrite() {
    }

    /** The instance-wide variant of one query, when the rewrite is mechanical. */
    public static Optional<String> instanceWide(String sql) {
        if (sql == null) {
            return Optional.empty();
        }
        Matcher m = SIMPLE_VIEW_QUERY.matcher(sql);
        if (!m.matches() || NOT_ROW_LOCAL.matcher(EXTRACT_FROM.matcher(m.group("columns")).replaceAll("extract("))
                .find()) {
            return Optional.empty();
        }
        String comment = m.group("comment") == null ? "" : m.group("comment");
        return Optional.of("select " + comment + "datname::text as " + MetricDefinition.FAN_OUT_KEY + ",\n  "
                + m.group("columns") + "\nfrom " + m.group("view") + "\nwhere datname is not null");
    }

    /**
     * {@code metric} with instance-wide variants for every version whose query rewrites
     * mechanically, provided all of them do; unchanged otherwise (also when it has variants or is
     * instance-level already). All or nothing, so that fan-out does not switch on or off with the
     * server version in a way an operator would not expect.
     */
    public static MetricDefinition withDerivedVariants(MetricDefinition metric) {
        return derive(metric).metric();
    }

    /**
     * What the import does with one metric's fan-out: {@code metric} with its derived variants (or
     * unchanged), and a note for the import's report when a variant was derived, or when a
     * per-database metric that names current_database() stays per database (with the reason).
     */
    public record Derivation(MetricDefinition metric, Optional<String> note) {
    }

    /**
     * Derives the variants: the one-row rewrite of pg_stat_database[_conflicts] where it applies (it
     * reads only the view), otherwise the generic lateral one ({@link LateralFanOut}); each version
     * must have one. The metric's {@code init_sql} does not matter: pgharvest never runs it.
     */
    public static Derivation derive(MetricDefinition metric) {
        if (metric.instanceLevel() || !metric.instanceSqls().isEmpty() || metric.sqls().isEmpty()
                || metric.sqls().keySet().stream().anyMatch(v -> v < MetricRules.MIN_MAJOR_VERSION)) {
            return new Derivation(metric, Optional.empty());
        }
        var variants = new LinkedHashMap<Integer, String>();
        for (Map.Entry<Integer, String> entry : metric.sqls().entrySet()) {
            Optional<String> variant = instanceWide(entry.getValue());
            if (variant.isEmpty()) {
                LateralFanOut.Outcome lateral = LateralFanOut.of(entry.getValue());
                if (lateral.variant() == null) {
                    boolean namesDatabase = entry.getValue() != null
                            && entry.getValue().toLowerCase(java.util.Locale.ROOT).contains("current_database");
                    return new Derivation(metric, namesDatabase
                            ? Optional.of("runs per database: its query of version " + entry.getKey() + " "
                                    + lateral.reason())
                            : Optional.empty());
                }
                variant = Optional.of(lateral.variant());
            }
            variants.put(entry.getKey(), variant.get());
        }
        var derived = new MetricDefinition(metric.name(), metric.description(), metric.sqls(), metric.gauges(),
                false, metric.nodeStatus(), metric.storageName(), metric.initSql(),
                metric.statementTimeoutSeconds(), variants);
        return new Derivation(derived, Optional.of("fans out: an instance-wide variant was derived, read once per"
                + " instance for all its collected databases"));
    }
}
