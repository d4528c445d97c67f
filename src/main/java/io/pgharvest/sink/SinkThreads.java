package io.pgharvest.sink;

/**
 * The threads of a sink's own work (writer, spiller, a storage's table creation and maintenance)
 * are platform threads. Virtual threads are not preempted: with hundreds of reapers busy on the
 * carriers (300 sources parsing their metrics in their first minute) a virtual writer waited for
 * a carrier at every statement, kept its table-creating transaction open for 25 s, and the first
 * row was written 47 s after start. The operating system gives a platform thread its share of
 * the CPU; a sink has a handful of them.
 */
public final class SinkThreads {

    private SinkThreads() {
    }

    /** A daemon platform thread named {@code sink-<sink>-<job>}, not started. */
    public static Thread.Builder.OfPlatform of(String sinkName, String job) {
        return Thread.ofPlatform().daemon(true).name("sink-" + sinkName + "-" + job);
    }
}
