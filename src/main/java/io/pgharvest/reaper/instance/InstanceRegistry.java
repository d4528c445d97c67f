package io.pgharvest.reaper.instance;

import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;
import java.util.Set;

/**
 * The PostgreSQL instances the engine collects from, each with its member sources. One per
 * reaper service. An instance exists while at least one source's session is open on it.
 */
public final class InstanceRegistry {

    private final ConcurrentHashMap<String, Instance> instances = new ConcurrentHashMap<>();

    /**
     * Adds or updates {@code source} as a member of the instance {@code key}, reading
     * {@code database} and collecting {@code activeMetrics}.
     */
    public Instance join(String key, String source, String database, Set<String> activeMetrics) {
        return instances.compute(key, (k, existing) -> {
            Instance instance = existing == null ? new Instance(k) : existing;
            instance.put(source, database, activeMetrics);
            return instance;
        });
    }

    /**
     * Removes {@code source} from {@code instance}; the instance goes when its last member does.
     * An instance that shares nothing ({@link Instance#alone()}) is in no registry.
     */
    public void leave(Instance instance, String source) {
        if (!instance.shared()) {
            return;
        }
        instances.computeIfPresent(instance.key(), (k, existing) -> existing.remove(source) ? null : existing);
    }

    Optional<Instance> instance(String key) {
        return Optional.ofNullable(instances.get(key));
    }

    int size() {
        return instances.size();
    }
}
