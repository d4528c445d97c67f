/**
 * Failure isolation: a pipeline that fails returns nothing, so the failing metric is searched for
 * across ticks ({@link io.pgharvest.reaper.isolation.SuspectGroups}) and moved to a lane of its own
 * with back-off ({@link io.pgharvest.reaper.isolation.SoloLane}); a metric whose object this
 * database lacks is noted once ({@link io.pgharvest.reaper.isolation.MissingObject}).
 *
 * <p>Threads: not thread-safe; each instance belongs to one reaper.
 */
package io.pgharvest.reaper.isolation;
