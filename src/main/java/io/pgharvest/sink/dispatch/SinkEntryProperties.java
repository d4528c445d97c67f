package io.pgharvest.sink.dispatch;

import static io.pgharvest.sink.SettingChecks.checkPositive;
import static io.pgharvest.sink.SettingChecks.checkRange;
import static io.pgharvest.sink.SettingChecks.orDefault;

import io.pgharvest.config.plugin.EntryOptions;
import io.pgharvest.sink.delivery.DeliverySettings;
import io.pgharvest.support.plugin.PluginOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.util.unit.DataSize;

/**
 * The options every entry of {@code pgharvest.sinks} has, whatever its type: which kind it is,
 * its name, and how its queue batches, spills and retries. The kind's own options are bound to
 * its kind's settings record.
 *
 * @param type the kind of sink, one of the registry's types
 * @param name name in logs, health, meters and the spill directory; defaults to the type, or
 *     type-index when several sinks share a type
 * @param batchSize most measurements handed to the sink in one write
 * @param batchDelay longest a measurement waits for a batch to fill before it is written
 * @param memoryQueue measurements kept in memory before older ones move to the spill log
 * @param diskBound size of the spill log above which the oldest measurements are dropped
 * @param retryInitial delay before the first retry of a failed write; doubles up to retryMax
 * @param retryMax longest delay between retries of a failed write
 * @param flushTimeout at shutdown, how long queued measurements may take to reach a healthy sink
 *     before the rest are persisted to the spill log
 */
record SinkEntryProperties(
        String type,
        String name,
        Integer batchSize,
        Duration batchDelay,
        Integer memoryQueue,
        DataSize diskBound,
        Duration retryInitial,
        Duration retryMax,
        Duration flushTimeout) implements EntryOptions {

    /** As the docs list them; one per component. */
    static final List<PluginOption> OPTIONS = List.of(
            new PluginOption("type", "required", "The kind of sink: one of the types below (`GET /api/v1/sink-types` "
                    + "lists those of the running build)"),
            new PluginOption("name", "the type (`type-index` when a type repeats)", "Name in logs, health, meters and "
                    + "the spill directory"),
            new PluginOption("batch-size", "`500`", "Most measurements per write (for prometheus-remote-write: per "
                    + "request)"),
            new PluginOption("batch-delay", "`1s`", "Longest a measurement waits for its batch to fill; also the "
                    + "shortest time between two batches that are not full, so measurements that arrive after a "
                    + "quiet spell (the first tick after start, a small fleet's tick) are written at once"),
            new PluginOption("memory-queue", "`10000`", "Measurements kept in memory before older ones move to the "
                    + "spill log"),
            new PluginOption("disk-bound", "`1GB`", "Size of the spill log above which the oldest measurements are "
                    + "dropped (at least 16KB)"),
            new PluginOption("retry-initial", "`1s`", "Delay after the first failed write; doubles up to `retry-max`"),
            new PluginOption("retry-max", "`30s`", "Longest delay between failed writes"),
            new PluginOption("flush-timeout", "`10s`", "At shutdown, how long a healthy sink may take to receive the "
                    + "queue before the rest is spilled"));

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final DataSize MIN_DISK_BOUND = DataSize.ofKilobytes(16);

    /** Absent options take their documented defaults here. */
    SinkEntryProperties {
        batchSize = orDefault(batchSize, 500);
        batchDelay = orDefault(batchDelay, Duration.ofSeconds(1));
        memoryQueue = orDefault(memoryQueue, 10_000);
        diskBound = orDefault(diskBound, DataSize.ofGigabytes(1));
        retryInitial = orDefault(retryInitial, Duration.ofSeconds(1));
        retryMax = orDefault(retryMax, Duration.ofSeconds(30));
        flushTimeout = orDefault(flushTimeout, Duration.ofSeconds(10));
    }

    /** An entry of {@code type} with every option at its default. */
    static SinkEntryProperties defaults(String type) {
        return new SinkEntryProperties(type, null, null, null, null, null, null, null, null);
    }

    DeliverySettings delivery() {
        return new DeliverySettings(batchSize, batchDelay, memoryQueue, diskBound.toBytes(), retryInitial, retryMax,
                flushTimeout);
    }

    /** Every problem of the common options, each naming its option under {@code prefix}. */
    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        if (name != null && !NAME.matcher(name).matches()) {
            problems.add(prefix + ".name must be 1-64 letters, digits, '_', '.' or '-' (was '" + name + "')");
        }
        checkRange(problems, prefix + ".batch-size", batchSize, 1, 100_000);
        checkRange(problems, prefix + ".memory-queue", memoryQueue, 1, 10_000_000);
        checkPositive(problems, prefix + ".batch-delay", batchDelay);
        checkPositive(problems, prefix + ".retry-initial", retryInitial);
        checkPositive(problems, prefix + ".retry-max", retryMax);
        checkPositive(problems, prefix + ".flush-timeout", flushTimeout);
        if (retryMax.compareTo(retryInitial) < 0) {
            problems.add(prefix + ".retry-max must not be shorter than retry-initial");
        }
        if (diskBound.compareTo(MIN_DISK_BOUND) < 0) {
            problems.add(prefix + ".disk-bound must be at least 16KB (was " + diskBound + ")");
        }
        return problems;
    }
}
