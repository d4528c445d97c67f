package io.pgharvest.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class LogRingTest {

    @Test
    void keepsTheNewestLinesInOrderAndForgetsTheOldestPastItsCapacity() {
        var ring = new LogRing();
        for (int i = 1; i <= LogRing.CAPACITY + 5; i++) {
            ring.append(Instant.EPOCH, "INFO", "test", "main", "line " + i);
        }
        var all = ring.after(0, Integer.MAX_VALUE);
        assertThat(all).hasSize(LogRing.CAPACITY);
        assertThat(all.getFirst().message()).isEqualTo("line 6");
        assertThat(all.getLast().sequence()).isEqualTo(LogRing.CAPACITY + 5);
        assertThat(ring.after(LogRing.CAPACITY + 3, 10)).extracting(LogLine::message)
                .containsExactly("line " + (LogRing.CAPACITY + 4), "line " + (LogRing.CAPACITY + 5));
        assertThat(ring.after(0, 2)).extracting(LogLine::sequence)
                .containsExactly((long) LogRing.CAPACITY + 4, (long) LogRing.CAPACITY + 5);
    }

    @Test
    void aNewLineWakesAWaiterOfTheBlockingQuery() throws Exception {
        var ring = new LogRing();
        ring.append(Instant.EPOCH, "INFO", "test", "main", "first");
        var waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return ring.changes().awaitAbove(1, Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertThat(waiter).isNotDone();
        ring.append(Instant.EPOCH, "WARN", "test", "main", "second");
        assertThat(waiter.get(1, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void secretsAreScrubbedBeforeALineIsKept() {
        var ring = new LogRing();
        ring.append(Instant.EPOCH, "WARN", "test", "main", "could not reach postgresql://mon:s3cr%40t@db1:5432/app"
                + " (host=db2 password=hunter2 sslpassword='key pass' \"token\":\"abc123\") Authorization: Bearer tok.en-1");
        String kept = ring.after(0, 1).getFirst().message();
        assertThat(kept).doesNotContain("s3cr", "hunter2", "key pass", "abc123", "tok.en-1")
                .contains("postgresql://mon:********@db1:5432/app", "host=db2", "password=********", "Bearer ********");
    }
}
