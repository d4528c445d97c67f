package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.List;
import java.util.Map;

/** A sink that remembers what it got and can be switched to failing, like a database going down. */
public class RecordingSink implements Sink {

    public final List<List<Measurement>> batches = new CopyOnWriteArrayList<>();
    public final AtomicBoolean failing = new AtomicBoolean();
    /** Batches accepted before the sink fails again; unlimited unless a test lowers it. */
    public final AtomicInteger acceptedBatchesLeft =
            new AtomicInteger(Integer.MAX_VALUE);
    public volatile CountDownLatch blockUntil;

    private final String name;

    public RecordingSink(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void write(List<Measurement> batch) throws Exception {
        CountDownLatch gate = blockUntil;
        if (gate != null) {
            gate.await();
        }
        if (failing.get() || acceptedBatchesLeft.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            throw new java.io.IOException("sink " + name + " is down");
        }
        batches.add(List.copyOf(batch));
    }

    /** Sequence numbers of everything delivered, in delivery order. */
    public List<Long> sequences() {
        var result = new ArrayList<Long>();
        for (List<Measurement> batch : batches) {
            for (Measurement m : batch) {
                result.add(seq(m));
            }
        }
        return result;
    }

    public static long seq(Measurement m) {
        return ((Number) m.rows().getFirst().values().get("seq")).longValue();
    }

    public static Measurement measurement(long seq) {
        return new Measurement("src1", "test_metric", Instant.ofEpochSecond(1_700_000_000L + seq),
                List.of(new Measurement.Row(Map.of("seq", seq, "value", seq * 1.5), Map.of("shard", "a"))),
                Map.of("env", "test"));
    }
}
