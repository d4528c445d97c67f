/**
 * Which sources this collector runs: {@link io.pgharvest.reaper.ownership.SourceOwnership} is what
 * the reaper service follows (every source without a fleet; the leases of {@code lease} with one),
 * {@link io.pgharvest.reaper.ownership.SharedLeases} hands a source over between two reapers of
 * this process without a gap or an overlap.
 *
 * <p>Threads: the ownership is changed by the lease coordinator's thread and read by the service;
 * {@link io.pgharvest.reaper.ownership.SharedLeases} guards its state with one lock.
 */
package io.pgharvest.reaper.ownership;
