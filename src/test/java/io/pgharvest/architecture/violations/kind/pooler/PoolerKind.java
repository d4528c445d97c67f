package io.pgharvest.architecture.violations.kind.pooler;

/** One kind family's own class. */
public final class PoolerKind {

    public Object registry() {
        return new io.pgharvest.architecture.violations.kind.KindRegistry();
    }
}
