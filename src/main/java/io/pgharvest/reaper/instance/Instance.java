package io.pgharvest.reaper.instance;

import io.pgharvest.nativemetric.InstanceShelf;
import java.util.concurrent.ConcurrentHashMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One PostgreSQL instance (system identifier + the address actually connected to) and the sources
 * collected from it, one per database or several. The engine's instance layer: what is read once
 * for the whole server is fetched through one member's session and shared here:
 * <ul>
 *   <li>instance-level metrics: the same rows for every member;</li>
 *   <li>fanned-out metrics (a per-database metric with an instance-wide variant, collected on at
 *       least two of the instance's databases): one instance-wide read, split per database, each
 *       member taking its own database's rows.</li>
 * </ul>
 * A source joins once its session knows the instance and leaves when the session closes. A source
 * without a known instance (not connected, a pooler's console, or a server whose system
 * identifier is not readable, where two servers behind one address could otherwise deliver each
 * other's rows) is on an instance of its own that shares nothing ({@link #alone()}): the engine
 * has one code path either way.
 *
 * <p>Thread-safe: members are changed by their own reapers, read by all; the per-metric count of
 * databases is republished as an immutable map on every change (membership changes are rare,
 * reads happen on every tick).
 */
public final class Instance {

    private final String key;
    private final InstanceMetricCache results;
    private final Map<String, Member> members = new ConcurrentHashMap<>();
    /** Metrics whose SQL named an object a member's database lacks ({@link io.pgharvest.kind.postgres.FailurePointer}). */
    private final Set<String> missingObjectOnAMember = ConcurrentHashMap.newKeySet();
    /** What each native metric's collectors share; dropped when no member collects the metric any more. */
    private final Map<String, InstanceShelf> nativeShelves = new ConcurrentHashMap<>();
    private volatile Membership membership = new Membership(Map.of());

    Instance(String key) {
        this(key, new InstanceMetricCache());
    }

    private Instance(String key, InstanceMetricCache results) {
        this.key = key;
        this.results = results;
    }

    /**
     * An instance of one source that shares nothing: it keeps no results, fans nothing out, has
     * no key and is in no {@link InstanceRegistry}.
     */
    public static Instance alone() {
        return new Instance(null, InstanceMetricCache.keepingNothing());
    }

    /** Whether this instance is known and shared by its members (false for {@link #alone()}). */
    public boolean shared() {
        return key != null;
    }

    /** The instance's key (system identifier@address); null for {@link #alone()}. */
    public String key() {
        return key;
    }

    /**
     * Records that {@code metric} failed on a member because its SQL names an object that member's
     * database lacks (an extension not installed, a view of another version).
     */
    public void recordMissingObject(String metric) {
        missingObjectOnAMember.add(metric);
    }

    /**
     * Whether {@code metric} failed on a member for a missing object. The other members' databases
     * probably lack it too (extensions are usually installed alike), so they try it alone first
     * instead of letting it abort their pipelines, one re-sent pipeline per such metric: with a few
     * of them a source's first tick used up its extra round trips and delivered nothing.
     */
    public boolean missesObjectOnAMember(String metric) {
        return missingObjectOnAMember.contains(metric);
    }

    /** Results shared between the members (instance-level and fanned-out metrics). */
    public InstanceMetricCache results() {
        return results;
    }

    /**
     * Whether {@code metric} is collected on at least two of the instance's databases: only then
     * does one instance-wide read replace several per-database ones (for a single database the
     * per-database query reads less).
     */
    public boolean fansOut(String metric) {
        return membership.databasesPerMetric().getOrDefault(metric, 0) >= 2;
    }

    /**
     * What the collectors of native metric {@code metric} on this instance's databases share:
     * a shelf of their own while the metric is collected on at least two databases
     * ({@link #fansOut}), {@link InstanceShelf#NONE} otherwise (and always on {@link #alone()}).
     */
    public InstanceShelf nativeShelf(String metric) {
        if (!fansOut(metric)) {
            return InstanceShelf.NONE;
        }
        return nativeShelves.computeIfAbsent(metric, m -> InstanceShelf.newShared());
    }

    /** The sources collected from this instance, by name. */
    Set<String> memberNames() {
        return Set.copyOf(members.keySet());
    }

    public int memberCount() {
        return members.size();
    }

    /**
     * A token replaced (never changed) whenever a member joins, leaves or changes its metrics:
     * what is derived from {@link #fansOut} and {@link #memberCount} holds while it is the same
     * object.
     */
    public Object membership() {
        return membership;
    }

    /** Called under the registry's per-key lock. */
    void put(String source, String database, Set<String> activeMetrics) {
        members.put(source, new Member(database, Set.copyOf(activeMetrics)));
        recount();
    }

    /** Called under the registry's per-key lock; true when no member is left. */
    boolean remove(String source) {
        members.remove(source);
        recount();
        return members.isEmpty();
    }

    private void recount() {
        var databases = new HashMap<String, Set<String>>();
        for (Member member : members.values()) {
            for (String metric : member.metrics()) {
                databases.computeIfAbsent(metric, m -> new HashSet<>()).add(member.database());
            }
        }
        var counts = new HashMap<String, Integer>();
        databases.forEach((metric, names) -> counts.put(metric, names.size()));
        membership = new Membership(Map.copyOf(counts));
        nativeShelves.keySet().retainAll(counts.keySet());
    }

    /** The per-metric count of databases, a new object on every change ({@link #membership()}). */
    private record Membership(Map<String, Integer> databasesPerMetric) {
    }

    private record Member(String database, Set<String> metrics) {
    }
}
