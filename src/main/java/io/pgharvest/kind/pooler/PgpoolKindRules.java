package io.pgharvest.kind.pooler;

/** Kind {@code pgpool}: pgpool-II's SHOW commands. */
public final class PgpoolKindRules extends AdminConsoleKindRules {

    public PgpoolKindRules() {
        super(AdminConsoleDialect.PGPOOL);
    }
}
