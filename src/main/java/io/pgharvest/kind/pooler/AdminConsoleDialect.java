package io.pgharvest.kind.pooler;

import io.pgharvest.model.SourceKind;

/**
 * What tells one admin console (reached with {@link AdminConsoleClient}) from another: its kind's name,
 * the command that makes it name its version, which proves the endpoint is of the expected kind,
 * and the key of a metric's {@code sqls} written for it (pgwatch's convention: {@code 0} pgbouncer, {@code 3}
 * pgpool). A PostgreSQL server has no dialect: it is reached with pgjdbc ({@link io.pgharvest.kind.postgres.SessionOpener#open}).
 *
 * @param label the kind's name ({@code kind} of a source)
 * @param versionCommand answered with one row whose first column is the version
 * @param sqlKey the key of the SQL written for this console in a metric's {@code sqls}
 * @param description what the endpoint is, for error messages
 */
public record AdminConsoleDialect(String label, String versionCommand, int sqlKey, String description) {

    /** pgbouncer's admin console (database {@code pgbouncer}). */
    public static final AdminConsoleDialect PGBOUNCER = new AdminConsoleDialect("pgbouncer", "show version", 0,
            "pgbouncer's admin console (database pgbouncer, user in admin_users or stats_users)");

    /** pgpool-II: its SHOW commands, like pgbouncer's console. */
    public static final AdminConsoleDialect PGPOOL = new AdminConsoleDialect("pgpool", "show pool_version", 3,
            "pgpool-II");

    /** The registered kind this console is ({@link AdminConsoleKindRules}). */
    public SourceKind kind() {
        return SourceKind.fromLabel(label);
    }
}
