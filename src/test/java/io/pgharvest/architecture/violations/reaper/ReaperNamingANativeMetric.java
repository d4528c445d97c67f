package io.pgharvest.architecture.violations.reaper;

/** Violates the native metric rule: the engine names an implementation. */
public final class ReaperNamingANativeMetric {

    public Object collector() {
        return new io.pgharvest.architecture.violations.host.HostMetricKind();
    }
}
