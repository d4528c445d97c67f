/**
 * The kinds of endpoint pgharvest collects from, as the rest of the code sees them: the one
 * session interface ({@link io.pgharvest.kind.SourceSession}) every kind implements, the values
 * it trades in ({@link io.pgharvest.kind.ServerFacts}, {@link io.pgharvest.kind.MetricQuery},
 * {@link io.pgharvest.kind.FetchedRows}), and the registry ({@link io.pgharvest.kind.EndpointRegistry})
 * that goes from a source's kind to its {@link io.pgharvest.kind.Endpoint}. Each kind family lives
 * in a sub-package of its own ({@code kind.postgres}, {@code kind.pooler}, {@code kind.continuous},
 * {@code kind.patroni}) with its rules (a {@link io.pgharvest.model.KindRules}, registered in
 * {@code META-INF/services/io.pgharvest.model.KindRules}, so the kernel checks a source of the kind
 * before it is stored); nothing outside this package and its sub-packages names a kind's class.
 *
 * <p>Threads: the registry is immutable once built and shared by every reaper and the API. A
 * session is not thread-safe: one reaper's thread opens it, uses it and closes it.
 */
package io.pgharvest.kind;
