package io.pgharvest.sink.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.sink.SinkStatus;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.testsupport.TestReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The remote-write sink against real receivers (Debian's prometheus with its remote-write receiver,
 * and victoria-metrics): pgharvest collects an embedded PostgreSQL; a JSON lines sink beside the
 * remote-write one records what was collected, and the receiver's HTTP API must hold exactly that.
 */
class RemoteWriteReceiverTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final String NUMBACKENDS = "pgharvest_db_stats_numbackends";
    private static final String XACT_COMMIT = "pgharvest_db_stats_xact_commit_total";
    /** Outage length: -Dpgharvest.test.receiver-outage-seconds (default 30). */
    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("pgharvest.test.receiver-outage-seconds", 30));

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(TestReceiver.Kind.class)
    void everySampleOfAMeasurementArrivesWithItsCollectionTimeAndLabels(TestReceiver.Kind kind) throws Exception {
        TestPostgres server = TestPostgres.shared();
        String database = database(server);
        try (TestReceiver receiver = TestReceiver.start(kind);
                var harvester = new CollectingHarvester(dir, server, database, receiver.writeUrl(),
                        "{db_stats: 1}")) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> harvester.collected("db_stats").size() >= 6);
            harvester.stop(); // flushes the queue to the receiver
            List<CollectingHarvester.Collected> collected = harvester.collected("db_stats");
            receiver.flush();

            assertSeries(receiver, NUMBACKENDS, collected, "numbackends");
            assertSeries(receiver, XACT_COMMIT, collected, "xact_commit");
            var up = receiver.samples("pgharvest_instance_up{source=\"" + CollectingHarvester.SOURCE + "\"}",
                    collected.getFirst().time().minusSeconds(5), Instant.now());
            assertThat(up).hasSize(1);
            assertThat(up.getFirst().labels()).isEqualTo(Map.of("__name__", "pgharvest_instance_up", "env", "test",
                    "source", CollectingHarvester.SOURCE));
            assertThat(up.getFirst().values()).isNotEmpty().allMatch(v -> v == 1.0);
        }
    }

    /**
     * The receiver is stopped for {@link #OUTAGE} (pgharvest itself restarted cleanly in the middle
     * of it) and started again: every collected sample arrives once, in order.
     */
    @ParameterizedTest
    @EnumSource(TestReceiver.Kind.class)
    void aReceiverOutageLosesNothingAndDuplicatesNothing(TestReceiver.Kind kind) throws Exception {
        TestPostgres server = TestPostgres.shared();
        String database = database(server);
        try (TestReceiver receiver = TestReceiver.start(kind);
                var harvester = new CollectingHarvester(dir, server, database, receiver.writeUrl(), "{db_stats: 1}")) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> harvester.status().written() >= 3);
            receiver.stop();
            Instant down = Instant.now();
            int before = harvester.collected("db_stats").size();
            Awaitility.await().atMost(OUTAGE.plusSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> Duration.between(down, Instant.now()).compareTo(OUTAGE.dividedBy(2)) >= 0);
            SinkStatus halfway = harvester.status();
            assertThat(halfway.up()).isFalse();
            assertThat(halfway.spilled()).isPositive();
            harvester.stop();
            harvester.start(); // a clean restart while the receiver is down: the spill is kept
            Awaitility.await().atMost(OUTAGE.plusSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> Duration.between(down, Instant.now()).compareTo(OUTAGE) >= 0);
            int duringOutage = harvester.collected("db_stats").size() - before;
            long spilled = harvester.status().spilled();
            receiver.restart();
            Instant back = Instant.now();
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> harvester.status().up() && harvester.status().spilled() == 0);
            Duration drained = Duration.between(back, Instant.now());
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> harvester.collected("db_stats").size() >= before + duringOutage + 3);
            harvester.stop();
            List<CollectingHarvester.Collected> collected = harvester.collected("db_stats");
            receiver.flush();

            assertSeries(receiver, NUMBACKENDS, collected, "numbackends");
            assertSeries(receiver, XACT_COMMIT, collected, "xact_commit");
            System.out.printf("%s outage: %d s down, %d measurements collected meanwhile, %d in the spill log at "
                    + "recovery, drained %d ms after the receiver was back; %d measurements, every sample once%n",
                    kind, OUTAGE.toSeconds(), duringOutage, spilled, drained.toMillis(), collected.size());
        }
    }

    @Test
    void aBatchTheReceiverRefusesWith400IsQuarantinedAndCountedAndTheRestDelivered() throws Exception {
        TestPostgres server = TestPostgres.shared();
        String database = database(server);
        try (TestReceiver receiver = TestReceiver.start(TestReceiver.Kind.PROMETHEUS);
                var proxy = new RejectingProxy(receiver.writeUrl(), 3);
                var harvester = new CollectingHarvester(dir, server, database, proxy.url(), "{db_stats: 1}")) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !proxy.rejected().isEmpty()
                    && harvester.status().written() >= 6);
            SinkStatus status = harvester.status();
            harvester.stop();
            List<CollectingHarvester.Collected> collected = harvester.collected("db_stats");

            Set<Long> refused = new HashSet<>();
            proxy.rejected().stream().filter(s -> s.labels().get("__name__").equals(NUMBACKENDS))
                    .forEach(s -> refused.addAll(s.timestamps()));
            assertThat(refused).isNotEmpty();
            assertThat(status.rejectedBatches()).isEqualTo(1);
            long refusedUp = proxy.rejected().stream().filter(s -> s.labels().get("__name__").equals("pgharvest_instance_up"))
                    .mapToLong(s -> s.timestamps().size()).sum();
            assertThat(status.rejected()).as("measurements of db_stats and instance_up in the refused request")
                    .isEqualTo(refused.size() + refusedUp);
            assertThat(status.up()).isTrue();
            try (var files = Files.list(harvester.spillDir().resolve("rejected"))) {
                assertThat(files.filter(f -> f.toString().endsWith(".spill"))).isNotEmpty();
            }
            var delivered = collected.stream().filter(c -> !refused.contains(c.time().toEpochMilli())).toList();
            assertThat(delivered.size()).isEqualTo(collected.size() - refused.size());
            List<TestReceiver.Series> stored = receiver.samples(NUMBACKENDS + "{source=\"" + CollectingHarvester.SOURCE
                    + "\"}", collected.getFirst().time(), collected.getLast().time());
            assertThat(stored).hasSize(1);
            assertThat(stored.getFirst().times()).containsExactlyElementsOf(
                    delivered.stream().map(c -> c.time().truncatedTo(ChronoUnit.MILLIS)).toList());
        }
    }

    /** The receiver holds exactly one sample per collected measurement: same time (ms), same value. */
    private static void assertSeries(TestReceiver receiver, String name, List<CollectingHarvester.Collected> collected,
            String column) {
        List<TestReceiver.Series> stored = receiver.samples(name + "{source=\"" + CollectingHarvester.SOURCE + "\"}",
                collected.getFirst().time(), collected.getLast().time());
        assertThat(stored).as("series %s in %s", name, receiver.kind()).hasSize(1);
        TestReceiver.Series series = stored.getFirst();
        var expectedLabels = new TreeMap<String, String>(Map.of("__name__", name, "env", "test",
                "source", CollectingHarvester.SOURCE));
        collected.getFirst().rows().getFirst().forEach((key, value) -> {
            if (key.startsWith("tag_")) {
                expectedLabels.put(key.substring(4), String.valueOf(value));
            }
        });
        assertThat(series.labels()).isEqualTo(expectedLabels);
        var times = new ArrayList<Instant>();
        var values = new ArrayList<Double>();
        for (CollectingHarvester.Collected c : collected) {
            times.add(Instant.ofEpochMilli(c.time().toEpochMilli()));
            values.add(((Number) c.rows().getFirst().get(column)).doubleValue());
        }
        assertThat(series.times()).as("%s sample times in %s; its log: %s", name, receiver.kind(), receiver.log())
                .containsExactlyElementsOf(times);
        assertThat(series.values()).as("%s values in %s", name, receiver.kind()).containsExactlyElementsOf(values);
    }

    private static String database(TestPostgres server) {
        String name = "remote_write_" + DATABASES.incrementAndGet() + "_" + ProcessHandle.current().pid();
        server.createDatabase(name);
        return name;
    }
}
