package io.pgharvest.architecture.violations.host;

/** A native metric implementation. */
public final class HostMetricKind {
}
