/**
 * One tick of one source: {@link io.pgharvest.reaper.tick.TickRunner} sends the due metrics in
 * one round trip through the source's session, narrows a failure down within a bounded number of
 * extra round trips, and turns rows into measurements, with its parts
 * {@link io.pgharvest.reaper.tick.RoundTrips} (each round trip, and whether the server answered in
 * time), {@link io.pgharvest.reaper.tick.LaneBook} (each failure booked in the solo lane, the
 * suspects and the ledger) and {@link io.pgharvest.reaper.tick.TickDelivery} (the tick's results and
 * the instance's fetches it claimed); {@link io.pgharvest.reaper.tick.NativeLane}
 * runs the due native metrics after it; {@link io.pgharvest.reaper.tick.MetricLedger} keeps each
 * metric's last outcome. {@link io.pgharvest.reaper.tick.CollectionPlan} is what a reaper knows of
 * its source's configuration, {@link io.pgharvest.reaper.tick.ReaperMeters} the engine's meters.
 *
 * <p>Threads: a tick runner and its parts live for one tick on its reaper's thread; the ledger and the native
 * lane belong to one reaper. {@link io.pgharvest.reaper.tick.ReaperMeters} is shared and
 * thread-safe.
 */
package io.pgharvest.reaper.tick;
