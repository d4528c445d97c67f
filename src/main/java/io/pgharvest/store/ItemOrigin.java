package io.pgharvest.store;

/** Where the definition of a metric or preset comes from. Sources are always {@link #USER}. */
public enum ItemOrigin {
    /** Shipped in the jar, not overridden: cannot be deleted. */
    BUILT_IN,
    /** The operator's definition replaces a built-in one; deleting it restores the built-in. */
    OVERRIDE,
    /** Defined by the operator only. */
    USER;

    public boolean builtIn() {
        return this != USER;
    }
}
