package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.delivery.DeliverySettings;
import io.pgharvest.sink.RecordingSink;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.TestSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;

@Tag("fast")
class SinkDispatcherTest {

    @TempDir
    Path dataDir;

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private SinkDispatcher dispatcher;

    @AfterEach
    void stopDispatcher() {
        if (dispatcher != null) {
            dispatcher.stop();
        }
    }

    @Test
    void measurementsReachEverySinkInBatchesInCollectionOrder() {
        var first = new RecordingSink("first");
        var second = new RecordingSink("second");
        dispatcher = start(List.of(first, second), settings(50, 10_000, DataSize.ofMegabytes(1)));

        publishEach(1, 1000);

        await().atMost(Duration.ofSeconds(20)).until(() -> first.sequences().size() == 1000
                && second.sequences().size() == 1000);
        assertThat(first.sequences()).containsExactlyElementsOf(range(1, 1000));
        assertThat(second.sequences()).containsExactlyElementsOf(range(1, 1000));
        assertThat(first.batches).allSatisfy(batch -> assertThat(batch).hasSizeLessThanOrEqualTo(50));
        assertThat(meters.get("pgharvest.sink.written").tag("sink", "first").functionCounter().count())
                .isEqualTo(1000);
    }

    @Test
    void measurementsAfterAQuietSpellAreWrittenAtOnceAndAStreamIsStillGroupedByTheBatchDelay() {
        var sink = new RecordingSink("pg");
        dispatcher = start(List.of(sink), TestSettings.delivery(1000, 10_000,
                DataSize.ofMegabytes(1), Duration.ofSeconds(6)));

        dispatcher.publish(List.of(RecordingSink.measurement(1)));
        // Nothing was written for longer than the delay: the first measurement does not wait for it.
        await().atMost(Duration.ofSeconds(4)).until(() -> sink.sequences().size() == 1);
        publishEach(2, 5);

        // Right after a batch, the next partial one waits for the delay and takes all that came.
        await().atMost(Duration.ofSeconds(20)).until(() -> sink.sequences().size() == 5);
        assertThat(sink.batches).extracting(List::size).containsExactly(1, 4);
    }

    @Test
    void oneSinkDownDoesNotHoldBackAnother() {
        var down = new RecordingSink("down");
        down.blockUntil = new CountDownLatch(1);
        var healthy = new RecordingSink("healthy");
        dispatcher = start(List.of(down, healthy), settings(10, 20, DataSize.ofMegabytes(1)));

        publishEach(1, 500);

        await().atMost(Duration.ofSeconds(20)).until(() -> healthy.sequences().size() == 500);
        assertThat(down.sequences()).isEmpty();
        down.blockUntil.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> down.sequences().size() == 500);
        assertThat(down.sequences()).containsExactlyElementsOf(range(1, 500));
    }

    @Test
    void outageSpillsToDiskAndDeliversEverythingOnceInOrderAfterRecovery() {
        var sink = new RecordingSink("pg");
        dispatcher = start(List.of(sink), settings(25, 40, DataSize.ofMegabytes(8)));
        publishEach(1, 100);
        await().atMost(Duration.ofSeconds(20)).until(() -> sink.sequences().size() == 100);

        sink.failing.set(true);
        publishEach(101, 3000);
        await().atMost(Duration.ofSeconds(20)).until(() -> status().spilled() > 2000);
        assertThat(status().up()).isFalse();
        assertThat(status().lastError()).contains("sink pg is down");
        sink.failing.set(false);
        publishEach(3001, 3500);

        await().atMost(Duration.ofSeconds(30)).until(() -> sink.sequences().size() >= 3500);
        assertThat(sink.sequences()).containsExactlyElementsOf(range(1, 3500));
        assertThat(status().spilled()).isZero();
        assertThat(status().dropped()).isZero();
        assertThat(status().up()).isTrue();
        assertThat(status().failures()).isPositive();
        assertThat(dataDir.resolve("spill/pg").toFile().list((dir, name) -> name.endsWith(".spill")))
                .hasSizeLessThanOrEqualTo(1);
    }

    @Test
    void measurementsKeptDuringAnOutageArriveAfterARestartInOrder() {
        var down = new RecordingSink("pg");
        down.failing.set(true);
        dispatcher = start(List.of(down), settings(25, 40, DataSize.ofMegabytes(8)));
        publishEach(1, 1000);
        await().atMost(Duration.ofSeconds(20)).until(() -> status().failures() > 0 && status().spilled() > 0);
        dispatcher.stop();
        dispatcher = null;
        assertThat(down.sequences()).isEmpty();

        var back = new RecordingSink("pg");
        dispatcher = start(List.of(back), settings(25, 40, DataSize.ofMegabytes(8)));
        publishEach(1001, 1100);

        await().atMost(Duration.ofSeconds(20)).until(() -> back.sequences().size() >= 1100);
        assertThat(back.sequences()).containsExactlyElementsOf(range(1, 1100));
    }

    @Test
    void deliveredPartOfTheSpillIsNotRepeatedAfterARestart() {
        var sink = new RecordingSink("pg");
        sink.failing.set(true);
        dispatcher = start(List.of(sink), settings(10, 20, DataSize.ofMegabytes(8)));
        publishEach(1, 300);
        await().atMost(Duration.ofSeconds(20)).until(() -> status().spilled() >= 250);
        sink.acceptedBatchesLeft.set(10);
        sink.failing.set(false);
        // Ten batches, most of ten: the first publish found the writer idle and went at once, alone.
        await().atMost(Duration.ofSeconds(20)).until(() -> sink.batches.size() == 10);
        int deliveredBefore = sink.sequences().size();
        assertThat(deliveredBefore).isBetween(91, 100);
        long failuresBefore = status().failures();
        await().atMost(Duration.ofSeconds(20)).until(() -> status().failures() > failuresBefore);
        dispatcher.stop();
        dispatcher = null;

        var after = new RecordingSink("pg");
        dispatcher = start(List.of(after), settings(10, 20, DataSize.ofMegabytes(8)));
        await().atMost(Duration.ofSeconds(20)).until(() -> after.sequences().size() >= 300 - deliveredBefore);
        var all = new ArrayList<>(sink.sequences());
        all.addAll(after.sequences());
        assertThat(all).containsExactlyElementsOf(range(1, 300));
    }

    @Test
    void pastTheDiskBoundTheOldestAreDroppedAndEveryDropIsCounted() {
        var sink = new RecordingSink("pg");
        sink.failing.set(true);
        dispatcher = start(List.of(sink), settings(10, 10, DataSize.ofKilobytes(16)));
        int produced = 3000;
        publishEach(1, produced);
        assertThat(status().queued()).isLessThanOrEqualTo(40);
        assertThat(status().spilledBytes()).isLessThanOrEqualTo(DataSize.ofKilobytes(16).toBytes());
        long droppedWhileDown = status().dropped();
        assertThat(droppedWhileDown).isGreaterThan(2000);
        sink.failing.set(false);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> sink.sequences().size() + status().dropped() == produced);
        List<Long> delivered = sink.sequences();
        assertThat(new HashSet<>(delivered)).hasSize(delivered.size());
        assertThat(delivered).isSorted();
        assertThat(delivered).contains((long) produced);
        assertThat(status().dropped()).isEqualTo(produced - delivered.size());
        assertThat(meters.get("pgharvest.sink.dropped").functionCounter().count())
                .isEqualTo(produced - delivered.size());
    }

    @Test
    void publishReturnsWhileTheSinkIsStuckInAWrite() {
        var stuck = new RecordingSink("stuck");
        stuck.blockUntil = new CountDownLatch(1);
        dispatcher = start(List.of(stuck), settings(10, 100, DataSize.ofMegabytes(8)));

        publishEach(1, 5000);

        await().atMost(Duration.ofSeconds(20)).until(() -> status().spilled() > 4000);
        assertThat(status().queued()).isLessThanOrEqualTo(400);
        stuck.blockUntil.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> stuck.sequences().size() == 5000);
        assertThat(stuck.sequences()).containsExactlyElementsOf(range(1, 5000));
    }

    @Test
    void rejectedMeasurementsAreCountedAsDroppedAndTheRestIsDelivered() {
        var picky = new RecordingSink("picky") {
            @Override
            public void write(List<Measurement> batch) throws Exception {
                var poison = batch.stream().filter(m -> RecordingSink.seq(m) == 7).toList();
                var rest = batch.stream().filter(m -> RecordingSink.seq(m) != 7).toList();
                super.write(rest);
                if (!poison.isEmpty()) {
                    throw new SinkRejectedException("seq 7 is unacceptable", poison, null);
                }
            }
        };
        dispatcher = start(List.of(picky), settings(100, 1000, DataSize.ofMegabytes(1)));

        publishEach(1, 10);

        await().atMost(Duration.ofSeconds(20)).until(() -> picky.sequences().size() == 9);
        assertThat(picky.sequences()).doesNotContain(7L).hasSize(9);
        assertThat(status().dropped()).isEqualTo(1);
        assertThat(status().written()).isEqualTo(9);
        assertThat(status().lastError()).contains("seq 7 is unacceptable");
    }

    @Test
    void stoppingFlushesQueuedMeasurementsToAHealthySink() {
        var sink = new RecordingSink("file");
        var slowBatches = TestSettings.delivery(1000, 10_000, DataSize.ofMegabytes(1), Duration.ofHours(1));
        dispatcher = start(List.of(sink), slowBatches);
        publishEach(1, 10);

        dispatcher.stop();
        dispatcher = null;

        assertThat(sink.sequences()).containsExactlyElementsOf(range(1, 10));
        assertThat(dataDir.resolve("spill/file/cursor")).doesNotExist();
    }

    private SinkDispatcher start(List<Sink> sinks, DeliverySettings settings) {
        var d = SinkDispatcher.open(sinks.stream().map(s -> new ConfiguredSink("postgres", null, s, settings)).toList(),
                dataDir.resolve("spill"), meters, Clock.systemUTC());
        d.start();
        return d;
    }

    private static DeliverySettings settings(int batchSize, int memoryQueue, DataSize diskBound) {
        return TestSettings.delivery(batchSize, memoryQueue, diskBound);
    }

    private SinkStatus status() {
        return dispatcher.statuses().getFirst();
    }

    private void publishEach(long from, long to) {
        for (long seq = from; seq <= to; seq++) {
            dispatcher.publish(List.of(RecordingSink.measurement(seq)));
        }
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
