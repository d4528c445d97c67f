/**
 * The collection engine: {@link io.pgharvest.reaper.ReaperService} keeps one
 * {@link io.pgharvest.reaper.SourceReaper} per collected source, each with its
 * {@link io.pgharvest.reaper.SessionKeeper} and {@link io.pgharvest.reaper.ReaperStatus}. The parts
 * a reaper is made of live in sub-packages by the state they own: {@code reaper.schedule} (when each
 * metric is due), {@code reaper.tick} (one tick and its outcomes), {@code reaper.isolation}
 * (failing metrics found and moved aside), {@code reaper.instance} (what the sources of one
 * server share), {@code reaper.ownership} (which sources this collector runs). The engine knows
 * kinds only through {@code kind.EndpointRegistry} and publishes through
 * {@code model.MeasurementPublisher}; it never imports a sink.
 *
 * <p>Threads: each reaper runs on a virtual thread of its own and owns its session, schedule,
 * ledger and lanes; the service's lock guards the set of reapers, which configuration changes
 * (store notifier) and ownership changes (leases) update; status is read from any thread through
 * volatile snapshots.
 */
package io.pgharvest.reaper;
