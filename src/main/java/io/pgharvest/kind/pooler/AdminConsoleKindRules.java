package io.pgharvest.kind.pooler;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.KindRules;
import io.pgharvest.model.Source;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.sql.MetricSql;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A pooler's admin console (pgbouncer, pgpool), reached through its SHOW commands rather than as
 * a PostgreSQL server: only SHOW metrics written under the console's SQL key (it acts on other
 * commands), no standby selection (a console has no recovery state), and only the connection
 * parameters the console client honours. One subclass per console, registered as every kind's rules
 * are ({@link KindRules}).
 */
abstract class AdminConsoleKindRules implements KindRules {

    /** The connection parameters pgharvest's console client acts on; any other would be ignored. */
    private static final Set<String> CONSOLE_PARAMETERS = Set.of("sslmode", "connect_timeout", "application_name");

    private final AdminConsoleDialect dialect;

    AdminConsoleKindRules(AdminConsoleDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public String label() {
        return dialect.label();
    }

    @Override
    public OptionalInt sqlKey() {
        return OptionalInt.of(dialect.sqlKey());
    }

    @Override
    public void checkUse(Source source, ConfigSnapshot config, List<FieldProblem> problems) {
        String kind = source.kind().label();
        int sqlKey = dialect.sqlKey();
        config.selectedMetrics(source, false).keySet().forEach(metric -> {
            String field = source.metrics().containsKey(metric) ? "metrics." + metric : "preset";
            String sql = config.metrics().get(metric).sqls().get(sqlKey);
            Optional<String> problem = sql == null
                    ? Optional.of("has no SQL under key " + sqlKey + " (the " + kind + " key)")
                    : MetricSql.problemOnConsole(sql).map(why -> "its SQL " + why);
            problem.ifPresent(why -> problems.add(new FieldProblem(field, "metric " + metric
                    + " cannot run on a " + kind + " source: " + why + "; choose SHOW metrics (preset '" + kind + "')")));
        });
        if (source.hasStandbySelection()) {
            problems.add(new FieldProblem(source.standbyPreset() != null ? "standbyPreset" : "standbyMetrics",
                    "a " + kind + " source has no standby state; leave it out"));
        }
        if (source.onlyIfPrimary()) {
            problems.add(new FieldProblem("onlyIfPrimary", "a " + kind + " source has no primary or standby role;"
                    + " leave it out"));
        }
        if (source.connection().parsed().orElse(null) instanceof ConnectionString conn) { // else reported as connStr
            conn.parameters().forEach((name, value) -> {
                if (!CONSOLE_PARAMETERS.contains(name)) {
                    problems.add(new FieldProblem("connStr", "parameter " + name + " has no effect on " + kind
                            + " sources (they honour " + String.join(", ", CONSOLE_PARAMETERS.stream().sorted().toList())
                            + "); leave it out"));
                } else if (name.equals("sslmode") && value.startsWith("verify")) {
                    problems.add(new FieldProblem("connStr", "sslmode=" + value + " is not supported for " + kind
                            + " sources: certificates are not verified on consoles; use require"));
                }
            });
        }
    }
}
