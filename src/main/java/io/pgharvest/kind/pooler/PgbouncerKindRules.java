package io.pgharvest.kind.pooler;

/** Kind {@code pgbouncer}: pgbouncer's admin console. */
public final class PgbouncerKindRules extends AdminConsoleKindRules {

    public PgbouncerKindRules() {
        super(AdminConsoleDialect.PGBOUNCER);
    }
}
