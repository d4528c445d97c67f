package io.pgharvest.kind.postgres;

import io.pgharvest.model.KindRules;
import io.pgharvest.model.SourceKind;

/** Kind {@code postgres}, the default: a PostgreSQL server, with no rules beyond every source's. */
public final class PostgresKindRules implements KindRules {

    static final String LABEL = "postgres";

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public boolean isDefault() {
        return true;
    }

    /** The registered kind. */
    public static SourceKind kind() {
        return SourceKind.fromLabel(LABEL);
    }
}
