package io.pgharvest.bench;

/**
 * Every figure of one measured run, flat so that it reads well as JSON. Deltas are over the
 * window; memory and thread figures are readings of /proc.
 *
 * @param cpuSeconds utime + stime of the collector process over the window
 * @param cpuSystemSeconds the stime part: time in the kernel (socket reads and writes, futexes)
 * @param rssKb VmRSS at the window's end; {@code rssMaxKb} the largest sampled in the window,
 *     {@code rssMeanKb} the mean of the samples (every 2 s): with G1 giving memory back after
 *     each marking cycle, RSS saw-tooths, and the mean is what the process occupies over time
 * @param peakRssKb VmHWM at the end: the process's peak since start, start-up included
 * @param heapAfterGcKb heap in use after a full GC (jcmd GC.run, then GC.heap_info) at the end
 * @param threadsMax most platform threads (/proc Threads) sampled during the window
 * @param virtualWorkers reapers (pgharvest) or metric threads (naive)
 * @param clientRoundTrips round trips as the collector counts them (pgharvest's meter; naive: executions)
 * @param serverTransactions transactions in the bench databases (pg_stat_database): one per round trip
 * @param serverStatements statements executed in the bench databases (pg_stat_statements calls)
 * @param serverSetConfigStatements the part of them that are pgharvest's set_config calls around
 *     metrics with their own statement timeout (not metric queries)
 * @param backends backends of the collector at the window's start; {@code backendsNew} appeared
 *     during it (reconnects), {@code backendsGone} ended during it
 * @param backendCpuSeconds CPU of the collector's backends over the window (/proc deltas)
 * @param serversCpuSeconds CPU of every process of the monitored servers over the window
 * @param lagP50Ms tick lag quantiles from the histogram's window delta (bucket upper bounds)
 * @param lagMaxSampledMs pgharvest: largest of Micrometer's max gauge sampled during the window
 * @param machineBusyPercent share of the machine's CPUs busy during the window (all processes)
 * @param othersBusyPercent the part of it not spent by the collector or the monitored servers:
 *     other work on the machine competing for the CPUs (it inflates tick lag, not CPU-seconds)
 */
record RunResult(
        String label, String group, String collector, String jvm, int sources, int metrics, int tickPeriodSeconds,
        String sink, double warmupSeconds, double windowSeconds, long startupMillis, long registrationMillis,
        double cpuSeconds, double cpuSystemSeconds, long rssKb, long rssMaxKb, long rssMeanKb, long peakRssKb, long heapAfterGcKb, int threadsMax,
        int threadsMin, long virtualWorkers,
        long ticks, long skippedTicks, long fetchesOk, long fetchesFailed, long fetchesCached, long clientRoundTrips,
        long measurements,
        long serverTransactions, long serverStatements, long serverSetConfigStatements, double serverExecMillis, long statementsDeallocated,
        int backends, int backendsNew, int backendsGone, double backendCpuSeconds, double serversCpuSeconds,
        double lagP50Ms, double lagP99Ms, double lagMaxMs, double lagMaxSampledMs, long lagSamples,
        double machineBusyPercent, double othersBusyPercent, String loadAverage) {

    /** Round trips per source per tick, counted on the server (one transaction per round trip). */
    double roundTripsPerTick() {
        return ticks == 0 ? Double.NaN : (double) serverTransactions / ticks;
    }

    double statementsPerTick() {
        return ticks == 0 ? Double.NaN : (double) serverStatements / ticks;
    }

    /** Statements that are metric queries (set_config calls left out). */
    long metricStatements() {
        return serverStatements - serverSetConfigStatements;
    }

    /** Platform threads plus virtual workers. */
    long allThreads() {
        return threadsMax + virtualWorkers;
    }
}
