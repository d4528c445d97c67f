package io.pgharvest.nativemetric;

import io.pgharvest.model.NativeNames;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The native metric implementations by name, and how to tell whether a server is on this host. */
public final class NativeMetricRegistry {

    private final Map<String, NativeMetric> byName;
    private final ServerLocality locality;

    /** @throws IllegalArgumentException on a name {@link NativeNames} does not list, or a name given twice */
    public NativeMetricRegistry(Collection<? extends NativeMetric> metrics, ServerLocality locality) {
        var map = new HashMap<String, NativeMetric>();
        for (NativeMetric metric : metrics) {
            if (!NativeNames.isImplementable(metric.name())) {
                throw new IllegalArgumentException("native metric '" + metric.name() + "' ("
                        + metric.getClass().getName() + ") is listed neither in NativeNames.KNOWN nor among"
                        + " the native metrics a kind adds (KindRules.addedNativeMetrics)");
            }
            if (map.put(metric.name(), metric) != null) {
                throw new IllegalArgumentException("two native metrics are named '" + metric.name() + "'");
            }
        }
        this.byName = Map.copyOf(map);
        this.locality = locality;
    }

    /** No implementations: every native metric is unavailable (engines built by tests that need none). */
    public static NativeMetricRegistry none() {
        return new NativeMetricRegistry(Set.of(), ServerLocality.system());
    }

    public Optional<NativeMetric> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Known names without an implementation here. */
    public Set<String> missing() {
        var missing = new TreeSet<>(NativeNames.KNOWN.keySet());
        missing.removeAll(byName.keySet());
        return missing;
    }

    public ServerLocality locality() {
        return locality;
    }
}
