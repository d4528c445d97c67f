package io.pgharvest.architecture.violations.kind;

/** The registry every kind is found in. */
public final class KindRegistry {
}
