/**
 * Patroni clusters (kind {@code patroni}, {@link io.pgharvest.kind.patroni.PatroniKindRules}: a
 * connection string that names the DCS, read as a {@link io.pgharvest.kind.patroni.DcsAddress}): the cluster's members read from etcd
 * ({@link io.pgharvest.kind.patroni.EtcdReader}, {@link io.pgharvest.kind.patroni.ClusterReader})
 * become PostgreSQL sources with their role ({@link io.pgharvest.kind.patroni.PatroniDiscoverer}),
 * and each member's REST API {@code /metrics} is a native metric
 * ({@link io.pgharvest.kind.patroni.PatroniRestMetric}) the discoverer adds to what it finds.
 *
 * <p>Threads: the discoverer is called from each discovering source's loop thread; the HTTP clients
 * are the JDK's (thread-safe); a member's REST metric collector belongs to that member's reaper.
 */
package io.pgharvest.kind.patroni;
