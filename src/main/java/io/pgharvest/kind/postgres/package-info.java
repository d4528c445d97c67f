/**
 * The PostgreSQL kind (sources of kind {@code postgres}, the default:
 * {@link io.pgharvest.kind.postgres.PostgresKindRules}; continuous discovery's configured instance
 * uses its endpoint too): pgjdbc sessions opened with pgharvest's rules ({@link io.pgharvest.kind.postgres.SessionOpener}),
 * a tick's metrics in one pipelined round trip ({@link io.pgharvest.kind.postgres.QueryPipeline}),
 * rows read into values ({@link io.pgharvest.kind.ResultSetMapper}), the failing metric
 * read from a parse error's position ({@link io.pgharvest.kind.postgres.FailurePointer}), and the
 * connection test.
 *
 * <p>Threads: {@link io.pgharvest.kind.postgres.SessionOpener} is shared by every reaper, discovery
 * and the API (its per-server login bounds are concurrent maps; each login runs on a virtual thread
 * of its own). A {@link io.pgharvest.kind.postgres.PostgresSession} and its pipeline are owned by
 * one reaper's thread.
 */
package io.pgharvest.kind.postgres;
