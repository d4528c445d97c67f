package io.pgharvest.discovery;

import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Turns one configured source into the sources the engine collects: one per database of an
 * instance (continuous discovery), one per member of a cluster (Patroni), and so on. The engine
 * never asks which mechanism it has: a kind without a discoverer is collected as configured
 * (the source itself), a kind with one is collected as whatever its last good discovery returned.
 *
 * <p>Contract for implementations (a Spring component; {@link SourceExpansion} finds them all):
 * <ul>
 *   <li>{@link #discover} runs on the source's own virtual thread, once at start and then every
 *       {@link #rediscoveryInterval}; it may block (connect, query, HTTP) but must bound its own
 *       waits (connect timeouts), since it holds up only its own source's next discovery.</li>
 *   <li>Each returned {@link DiscoveredSource} carries a complete {@link Source} of a kind the
 *       engine collects, with a unique, stable, derived name (it names the reaper, the meters
 *       and the {@code dbname} column); the selection, tags and group are usually the configured
 *       source's. A name that stays keeps its reaper (and its schedule) across rediscoveries.</li>
 *   <li>Throwing keeps the previous set running (last known good, as pgwatch does) and shows the
 *       error in the configured source's status. Returning an empty list retires every reaper.</li>
 *   <li>Secrets: the configured connection string is a secret; exception messages must not
 *       contain it (use {@code ConnectionString.masked()}).</li>
 * </ul>
 */
public interface SourceDiscoverer {

    /** The configured kinds this discoverer expands; each kind has at most one discoverer. */
    Set<SourceKind> kinds();

    /** The sources to collect for {@code configured} now. */
    List<DiscoveredSource> discover(Source configured) throws DiscoveryException;

    /** How long after a discovery the next one runs; by default {@code pgharvest.discovery.interval}. */
    default Duration rediscoveryInterval(Source configured, Duration configuredDefault) {
        return configuredDefault;
    }
}
