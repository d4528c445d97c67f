package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.delivery.DeliverySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.sink.Sink;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.util.unit.DataSize;

/**
 * The child JVM of {@link io.pgharvest.sink.spill.KillDuringOutageTest}: a PostgreSQL sink whose storage is down (a
 * closed port), fed one measurement every 20 ms, printing {@code published <seq> <epoch ms>}
 * after each {@code publish} returned, until it is killed.
 */
public final class SpillCrashChild {

    private SpillCrashChild() {
    }

    public static void main(String[] args) throws Exception {
        Path spillRoot = Path.of(args[0]);
        int closedPort = Integer.parseInt(args[1]);
        // The memory bound is far above what the run publishes: only the outage rule moves data to disk.
        var delivery = new DeliverySettings(100, Duration.ofSeconds(1), 100_000, DataSize.ofMegabytes(64).toBytes(),
                Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(5));
        var threads = new SinkPoolThreads();
        Sink sink = PostgresSink.create("pgharvest.sinks[0]", "pg",
                PostgresSinkProperties.of("postgresql://nobody@127.0.0.1:" + closedPort + "/storage"), threads,
                Clock.systemUTC());
        var dispatcher = SinkDispatcher.open(List.of(new ConfiguredSink("postgres", null, sink, delivery)), spillRoot,
                new SimpleMeterRegistry(), Clock.systemUTC());
        dispatcher.start();
        var out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        for (long seq = 1; ; seq++) {
            long now = System.currentTimeMillis();
            dispatcher.publish(List.of(new Measurement("src", "crash_test", Instant.ofEpochMilli(now),
                    List.of(new Measurement.Row(Map.of("seq", seq), Map.of())), Map.of())));
            out.println("published " + seq + " " + now);
            out.flush();
            Thread.sleep(20);
        }
    }
}
