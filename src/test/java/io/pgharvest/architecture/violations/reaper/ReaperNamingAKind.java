package io.pgharvest.architecture.violations.reaper;

/** Violates the kind rule: the engine names a kind's class instead of asking the registry. */
public final class ReaperNamingAKind {

    public Object endpoint() {
        return new io.pgharvest.architecture.violations.kind.pooler.PoolerKind();
    }
}
