package io.pgharvest.kind.pooler;

/** Kind {@code pgpool}: pgpool-II's SHOW commands. */
public final class PgpoolKindRules extends ConsoleKindRules {

    public PgpoolKindRules() {
        super(ConsoleDialect.PGPOOL);
    }
}
