package io.pgharvest.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.BoundedText;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class LogRingTest {

    private static final int LINES = 2000;

    @Test
    void keepsTheNewestLinesInOrderAndForgetsTheOldestPastItsCapacity() {
        var ring = new LogRing(LINES, Long.MAX_VALUE);
        for (int i = 1; i <= LINES + 5; i++) {
            ring.append(Instant.EPOCH, "INFO", "test", "main", "line " + i);
        }
        var all = ring.after(0, Integer.MAX_VALUE);
        assertThat(all).hasSize(LINES);
        assertThat(all.getFirst().message()).isEqualTo("line 6");
        assertThat(all.getLast().sequence()).isEqualTo(LINES + 5);
        assertThat(ring.after(LINES + 3, 10)).extracting(LogLine::message)
                .containsExactly("line " + (LINES + 4), "line " + (LINES + 5));
        assertThat(ring.after(0, 2)).extracting(LogLine::sequence)
                .containsExactly((long) LINES + 4, (long) LINES + 5);
    }

    @Test
    void aNewLineWakesAWaiterOfTheBlockingQuery() throws Exception {
        var ring = new LogRing(LINES, Long.MAX_VALUE);
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
        var ring = new LogRing(LINES, Long.MAX_VALUE);
        ring.append(Instant.EPOCH, "WARN", "test", "main", "could not reach postgresql://mon:s3cr%40t@db1:5432/app"
                + " (host=db2 password=hunter2 sslpassword='key pass' \"token\":\"abc123\") Authorization: Bearer tok.en-1");
        String kept = ring.after(0, 1).getFirst().message();
        assertThat(kept).doesNotContain("s3cr", "hunter2", "key pass", "abc123", "tok.en-1")
                .contains("postgresql://mon:********@db1:5432/app", "host=db2", "password=********", "Bearer ********");
    }

    @Test
    void linesThatSayTheSameOfManySourcesAreOneCauseCountingTheSources() {
        var ring = new LogRing(LINES, Long.MAX_VALUE);
        for (int i = 1; i <= 300; i++) {
            ring.append(Instant.EPOCH, "WARN", "io.pgharvest.reaper.SessionKeeper", "reaper-" + i,
                    "Source flood-" + i + ": cannot connect: Connection to 127.0.0.1:" + (40000 + i) + " refused"
                            + " (attempt " + (i % 4 + 1) + ", next in " + i % 7 + " s)", "flood-" + i);
        }
        ring.append(Instant.EPOCH, "WARN", "io.pgharvest.reaper.SessionKeeper", "reaper-1",
                "Source flood-1: cannot connect: Connection to 127.0.0.1:40001 refused (attempt 8, next in 9 s)", "flood-1");
        ring.append(Instant.EPOCH, "INFO", "io.pgharvest.reaper.ReaperService", "main", "Source flood-2: collection started",
                "flood-2");
        ring.append(Instant.EPOCH, "INFO", "io.pgharvest.Other", "main", "a line about no source", null);

        List<LogCause> causes = ring.causesAfter(0);

        assertThat(causes).hasSize(3);
        LogCause refused = causes.getFirst();
        assertThat(refused.count()).isEqualTo(301);
        assertThat(refused.sources()).isEqualTo(300);
        assertThat(refused.message()).isEqualTo(
                "Source flood-1: cannot connect: Connection to 127.0.0.1:40001 refused (attempt 8, next in 9 s)");
        assertThat(ring.sourcesOf(refused.id()).orElseThrow()).hasSize(300).startsWith("flood-1", "flood-2")
                .endsWith("flood-300");
        assertThat(causes.get(1).message()).isEqualTo("Source flood-2: collection started");
        assertThat(ring.sourcesOf(causes.get(1).id()).orElseThrow()).containsExactly("flood-2");
        assertThat(causes.get(2).sources()).isZero();
        assertThat(ring.sourcesOf(causes.get(2).id()).orElseThrow()).isEmpty();
    }

    @Test
    void aCauseIsReportedAgainOnlyWhenItHasANewLineAndDifferentWordsAreDifferentCauses() {
        var ring = new LogRing(LINES, Long.MAX_VALUE);
        ring.append(Instant.EPOCH, "WARN", "test", "main", "Source a: extension pg_stat_statements is missing", "a");
        ring.append(Instant.EPOCH, "WARN", "test", "main", "Source b: extension pg_stat_statements is missing", "b");
        ring.append(Instant.EPOCH, "WARN", "test", "main", "Source a: permission denied for table x", "a");
        long seen = 3;
        assertThat(ring.causesAfter(0)).hasSize(2);
        assertThat(ring.causesAfter(seen)).isEmpty();

        ring.append(Instant.EPOCH, "WARN", "test", "main", "Source c: extension pg_stat_statements is missing", "c");

        List<LogCause> changed = ring.causesAfter(seen);
        assertThat(changed).singleElement().satisfies(cause -> {
            assertThat(cause.count()).isEqualTo(3);
            assertThat(cause.sources()).isEqualTo(3);
            assertThat(cause.sequence()).isEqualTo(4);
        });
        assertThat(ring.sourcesOf(999)).isEmpty();
    }

    @Test
    void theOldestCausesAreForgottenPastTheBoundSoAFloodCannotGrowIt() {
        var ring = new LogRing(LINES, Long.MAX_VALUE);
        for (int i = 0; i < LogCauses.MAX_CAUSES + 10; i++) {
            ring.append(Instant.EPOCH, "INFO", "test", "main", "cause " + "x".repeat(i % 50) + (char) ('a' + i / 50), null);
        }
        List<LogCause> causes = ring.causesAfter(0);
        assertThat(causes).hasSize(LogCauses.MAX_CAUSES);
        assertThat(causes.getFirst().sequence()).isEqualTo(11);
    }

    @Test
    void theRingForgetsTheOldestLinesPastItsByteBound() {
        var ring = new LogRing(LINES, 100_000);
        for (int i = 1; i <= 100; i++) {
            ring.append(Instant.EPOCH, "INFO", "test", "main", i + " " + "x".repeat(2000));
        }
        var kept = ring.after(0, Integer.MAX_VALUE);
        // 2 bytes per character plus the line overhead: about 4,190 bytes a line, 23 lines in 100,000
        assertThat(kept).hasSizeBetween(20, 24);
        assertThat(kept.getLast().message()).startsWith("100 ");
        assertThat(ring.bytes()).isLessThanOrEqualTo(100_000);
    }

    @Test
    void aHugeMessageIsCutAndItsControlCharactersEscapedBeforeItIsKept() {
        var ring = new LogRing(LINES, Long.MAX_VALUE);
        ring.append(Instant.EPOCH, "WARN", "test", "main", "\u001b[31mred\nforged line\r".repeat(1_000_000));
        String kept = ring.after(0, 1).getFirst().message();
        assertThat(kept).hasSizeLessThanOrEqualTo(BoundedText.MAX_CHARS).startsWith("\\u001b[31mred\\nforged line\\r")
                .doesNotContain("\u001b", "\n", "\r").endsWith(" characters cut]");
        assertThat(ring.bytes()).isLessThan(10_000);
    }
}
