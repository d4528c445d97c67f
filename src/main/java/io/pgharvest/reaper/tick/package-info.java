/**
 * One tick of one source: {@link io.pgharvest.reaper.tick.TickRunner} sends the due metrics in
 * one round trip through the source's session, narrows a failure down within a bounded number of
 * extra round trips, and turns rows into measurements; {@link io.pgharvest.reaper.tick.NativeLane}
 * runs the due native metrics after it; {@link io.pgharvest.reaper.tick.MetricLedger} keeps each
 * metric's last outcome. {@link io.pgharvest.reaper.tick.CollectionPlan} is what a reaper knows of
 * its source's configuration, {@link io.pgharvest.reaper.tick.ReaperMeters} the engine's meters.
 *
 * <p>Threads: a tick runner lives for one tick on its reaper's thread; the ledger and the native
 * lane belong to one reaper. {@link io.pgharvest.reaper.tick.ReaperMeters} is shared and
 * thread-safe.
 */
package io.pgharvest.reaper.tick;
