/**
 * When a source's metrics are due: {@link io.pgharvest.reaper.schedule.TickSchedule} (the
 * fixed-rate grid, per-metric due times kept across changes), {@link io.pgharvest.reaper.schedule.ScheduleStretch}
 * (a slow server's schedule stretched with a cap), {@link io.pgharvest.reaper.schedule.TickTimer} and
 * {@link io.pgharvest.reaper.schedule.WakeSignal} (sleeping until then, woken by a change), and
 * {@link io.pgharvest.reaper.schedule.EarlyStarts} (logins to one server paced at start), and
 * {@link io.pgharvest.reaper.schedule.IdleSessionWatch} (one thread that wakes a sleeping reaper
 * whose server sent something on its idle session).
 *
 * <p>Threads: a schedule, its stretch and its wake signal belong to one reaper (the signal is raised
 * from the service's thread); {@link io.pgharvest.reaper.schedule.EarlyStarts} is shared by all
 * reapers and uses concurrent maps; the idle-session watch has a thread of its own and a concurrent
 * set of sleepers, whose callbacks it runs without blocking.
 */
package io.pgharvest.reaper.schedule;
