/**
 * Continuous discovery (kind {@code postgres-continuous-discovery},
 * {@link io.pgharvest.kind.continuous.ContinuousKindRules}: database name patterns): one configured
 * PostgreSQL instance stands for one source per database that matches its patterns. Its
 * {@link io.pgharvest.kind.continuous.ContinuousDiscoverer} lists the databases with the PostgreSQL
 * kind's session opener; the configured source is collected by nobody itself, and its connection
 * test is PostgreSQL's ({@link io.pgharvest.kind.continuous.ContinuousEndpoint}).
 *
 * <p>Threads: the discoverer holds no state; each discovering source's loop calls it from its own
 * virtual thread ({@code discovery.DiscoveryLoop}).
 */
package io.pgharvest.kind.continuous;
