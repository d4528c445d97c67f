package io.pgharvest.kind.continuous;

import io.pgharvest.model.KindRules;
import io.pgharvest.model.SourceKind;

/** Kind {@code postgres-continuous-discovery}: a server, and name patterns for the databases it collects. */
public final class ContinuousKindRules implements KindRules {

    static final String LABEL = "postgres-continuous-discovery";

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public boolean selectsDatabases() {
        return true;
    }

    @Override
    public String connectionHint() {
        return "the server whose databases are listed: " + connectionSyntax().description();
    }

    /** The registered kind. */
    static SourceKind kind() {
        return SourceKind.fromLabel(LABEL);
    }
}
