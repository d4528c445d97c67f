package io.pgharvest.sink.delivery;

import io.pgharvest.sink.RecordingSink;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.TestSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;

/** A sink writer hit by an unexpected error is shown FAILED, restarted, and loses nothing. */
@Tag("fast")
class WriterSupervisorTest {

    @TempDir
    Path dataDir;

    @Test
    void aWriterLoopEndedByAnErrorIsRestartedAndDeliversEverything() throws Exception {
        var explode = new AtomicBoolean(true);
        var sink = new RecordingSink("buggy") {
            @Override
            public void write(List<Measurement> batch) throws Exception {
                if (explode.get()) {
                    throw new StackOverflowError("a bug in the sink");
                }
                super.write(batch);
            }
        };
        var meters = new SimpleMeterRegistry();
        var channel = new SinkChannel(sink, "jsonfile", "recording",
                TestSettings.delivery(10, 1000, DataSize.ofMegabytes(1)),
                dataDir.resolve("spill"), meters, Clock.systemUTC());
        channel.start();
        try {
            for (long seq = 1; seq <= 5; seq++) {
                channel.publish(List.of(RecordingSink.measurement(seq)));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> channel.status().writerFailure() != null);
            assertThat(channel.status().writerFailure()).contains("a bug in the sink");

            explode.set(false);
            await().atMost(Duration.ofSeconds(10)).until(() -> sink.sequences().size() == 5);
            assertThat(sink.sequences()).containsExactly(1L, 2L, 3L, 4L, 5L);
            SinkStatus status = channel.status();
            assertThat(status.writerFailure()).isNull();
            assertThat(status.writerRestarts()).isPositive();
            assertThat(meters.get("pgharvest.sink.writer.restarts").functionCounter().count()).isPositive();
        } finally {
            channel.stop();
        }
    }
}
