package io.pgharvest.bench;

/** A collector under test, running as its own process. */
interface Collector extends AutoCloseable {

    /** "pgharvest" or "naive". */
    String kind();

    /** The collector's JVM. */
    JavaProcess process();

    /** Milliseconds from launch until it was ready to collect (sources connected or registered). */
    long startupMillis();

    /** Milliseconds spent registering sources through an API after start-up; 0 if none. */
    default long registrationMillis() {
        return 0;
    }

    default long pid() {
        return process().pid();
    }

    /** The application_name its sessions carry, to find its backends in pg_stat_activity. */
    String applicationName();

    /** Cumulative counters since start (read through the collector's own reporting). */
    Counters counters();

    /** The longest tick lag the collector saw recently (pgharvest: Micrometer's decaying max). */
    double recentMaxLagSeconds();

    /** Virtual workers: reapers for pgharvest, metric threads for the naive collector. */
    long virtualWorkers();

    /** Stops the process (SIGTERM, then SIGKILL). */
    @Override
    default void close() throws Exception {
        process().close();
    }

    /**
     * Cumulative counters of a collector.
     *
     * @param ticks ticks run (naive: per-source grid points at which something ran)
     * @param skippedTicks grid points skipped because the previous run overran
     * @param fetchesOk metric executions with a result (pgharvest: including instance-level
     *     metrics delivered from its shared cache, counted in {@code fetchesCached} too)
     * @param fetchesFailed executions that failed or timed out
     * @param fetchesCached pgharvest only: instance-level results served from its cache
     * @param roundTrips client-side count of round trips (pgharvest's meter; naive: executions)
     * @param measurements measurements delivered to the sink
     * @param lag histogram of tick lag
     */
    record Counters(long ticks, long skippedTicks, long fetchesOk, long fetchesFailed, long fetchesCached,
            long roundTrips, long measurements, LagHistogram.Counts lag) {

        Counters minus(Counters earlier) {
            return new Counters(ticks - earlier.ticks, skippedTicks - earlier.skippedTicks,
                    fetchesOk - earlier.fetchesOk, fetchesFailed - earlier.fetchesFailed,
                    fetchesCached - earlier.fetchesCached, roundTrips - earlier.roundTrips,
                    measurements - earlier.measurements, lag.minus(earlier.lag));
        }
    }
}
