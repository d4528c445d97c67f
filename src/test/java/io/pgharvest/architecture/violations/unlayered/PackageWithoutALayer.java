package io.pgharvest.architecture.violations.unlayered;

/** Violates the layering rule: its package has no layer. */
public final class PackageWithoutALayer {
}
