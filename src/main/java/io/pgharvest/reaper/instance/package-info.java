/**
 * The instance layer: the sources on one PostgreSQL server ({@link io.pgharvest.reaper.instance.Instance},
 * found in {@link io.pgharvest.reaper.instance.InstanceRegistry}) share instance-level results and
 * fanned-out reads ({@link io.pgharvest.reaper.instance.InstanceMetricCache}, split by database with
 * {@link io.pgharvest.reaper.instance.FanOutSplit}); one member fetches, the others take the result.
 * An endpoint without a PostgreSQL instance gets one that shares nothing, never null.
 *
 * <p>Threads: shared by the reapers of one server: members join and leave from their own threads
 * and claims on a fetch go through concurrent maps.
 */
package io.pgharvest.reaper.instance;
