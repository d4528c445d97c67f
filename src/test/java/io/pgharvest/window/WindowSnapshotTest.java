package io.pgharvest.window;

import static io.pgharvest.window.RecentWindowTest.dbStats;
import static io.pgharvest.window.RecentWindowTest.measurement;
import static io.pgharvest.window.RecentWindowTest.only;
import static io.pgharvest.window.RecentWindowTest.row;
import static io.pgharvest.window.RecentWindowTest.values;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The window's snapshot without a server: what it keeps, what a restart restores, and what it refuses. */
@Tag("fast")
class WindowSnapshotTest {

    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
    private static final WindowLimits HOUR = new WindowLimits(3_600_000, 720, 100);
    private static final Clock AT_T0_PLUS_10M = Clock.fixed(T0.plusSeconds(600), ZoneOffset.UTC);

    @TempDir
    Path dataDir;

    private final Logger snapshotLog = (Logger) LoggerFactory.getLogger(WindowSnapshots.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void captureLogs() {
        logs.start();
        snapshotLog.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        snapshotLog.detachAppender(logs);
    }

    @Test
    void aRestartedWindowAnswersTheSameSeriesAndTextsMarkedSnapshot() {
        var before = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        fill(before);
        var written = new WindowSnapshots(before, file(), Duration.ofMinutes(1));
        assertThat(written.write()).isTrue();

        var after = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        assertThat(new WindowSnapshots(after, file(), Duration.ofMinutes(1)).restore()).isEqualTo(3 * 6 + 2 * 2);

        List<Series> expected = before.read("a", 0, Set.of());
        List<Series> restored = after.read("a", 0, Set.of());
        assertThat(restored).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            Series e = expected.get(i);
            Series r = restored.get(i);
            assertThat(List.of(r.metric(), r.column(), r.tags(), r.kind()))
                    .isEqualTo(List.of(e.metric(), e.column(), e.tags(), e.kind()));
            assertThat(r.times()).isEqualTo(e.times());
            assertThat(r.values()).isEqualTo(e.values());
            assertThat(e.store()).isEqualTo("window");
            assertThat(r.store()).isEqualTo("snapshot");
        }
        assertThat(only(restored, "xact_commit").values()).containsExactly(10.0, 30.0, 10.0, 20.0);
        assertThat(after.source("a").orElseThrow().text("42")).isEqualTo("select $1 from t");
        assertThat(after.source("a").orElseThrow().statements(0)).extracting(Statement::queryid, Statement::calls)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("42", 12.0));
        assertThat(after.keyNumbers()).isEqualTo(before.keyNumbers());
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).singleElement().asString()
                .contains("restored 22 points of 1 sources");
    }

    @Test
    void freshPointsContinueTheRestoredSeriesWhichSaysWindowOnceNoRestoredPointIsInTheSpan() {
        var before = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        fill(before);
        new WindowSnapshots(before, file(), Duration.ofMinutes(1)).write();
        var after = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        new WindowSnapshots(after, file(), Duration.ofMinutes(1)).restore();

        after.record(List.of(dbStats("a", T0.plusSeconds(300), 1500, 3)));
        Series commits = only(after.read("a", 0, Set.of("db_stats")), "xact_commit");
        // the first fresh point's rate is taken from the last restored one: 350 -> 1500 in 250 s
        assertThat(commits.values()).hasSize(5).endsWith(1150.0 / 250);
        assertThat(commits.store()).isEqualTo("snapshot");
        Series sinceRestart = only(after.read("a", T0.plusSeconds(51).toEpochMilli(), Set.of("db_stats")), "xact_commit");
        assertThat(sinceRestart.times()).containsExactly(T0.plusSeconds(300).toEpochMilli());
        assertThat(sinceRestart.store()).isEqualTo("window");
    }

    @Test
    void pointsThatLeftTheSpanMeanwhileAreNotRestoredAndTheBudgetStillBounds() {
        var before = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        fill(before);
        new WindowSnapshots(before, file(), Duration.ofMinutes(1)).write();

        // started again 70 minutes later: only points after T0 + 10 min would be in the span, none is
        var late = new RecentWindow(HOUR, 1 << 20, Clock.fixed(T0.plusSeconds(4200), ZoneOffset.UTC));
        assertThat(new WindowSnapshots(late, file(), Duration.ofMinutes(1)).restore()).isZero();
        assertThat(late.read("a", 0, Set.of())).isEmpty();

        // a bound with room for one series (its fixed cost and first points) restores one series
        long oneSeries = MemoryBudget.BYTES_PER_SERIES + (long) SeriesRing.INITIAL_POINTS * MemoryBudget.BYTES_PER_POINT;
        var small = new RecentWindow(HOUR, oneSeries + 100, AT_T0_PLUS_10M);
        new WindowSnapshots(small, file(), Duration.ofMinutes(1)).restore();
        assertThat(small.seriesCount()).isEqualTo(1);
        assertThat(small.budget().reserved()).isLessThanOrEqualTo(small.budget().limit());
    }

    @Test
    void aCorruptTruncatedOrForeignSnapshotIsDroppedWithOneLogLineAndTheWindowStartsEmpty() throws Exception {
        var before = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        fill(before);
        new WindowSnapshots(before, file(), Duration.ofMinutes(1)).write();
        byte[] good = Files.readAllBytes(file());

        byte[] flipped = good.clone();
        flipped[good.length / 2] ^= 0x10;
        byte[] foreign = "sources:\n  - name: a\n".getBytes();
        byte[] newerVersion = good.clone();
        newerVersion[11] = 2;
        Map<String, byte[]> bad = Map.of("checksum mismatch", flipped,
                "truncated", Arrays.copyOf(good, good.length - 7),
                "not a window snapshot", foreign,
                "format version 2", newerVersion);
        for (Map.Entry<String, byte[]> file : bad.entrySet()) {
            Files.write(file(), file.getValue());
            logs.list.clear();
            var after = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);

            assertThat(new WindowSnapshots(after, file(), Duration.ofMinutes(1)).restore()).as(file.getKey()).isZero();

            assertThat(after.read("a", 0, Set.of())).as(file.getKey()).isEmpty();
            assertThat(logs.list).as(file.getKey()).singleElement().satisfies(line -> {
                assertThat(line.getLevel().toString()).isEqualTo("WARN");
                assertThat(line.getFormattedMessage()).contains("is dropped", file.getKey(), "starts empty");
            });
            assertThat(file()).as(file.getKey()).doesNotExist();
        }
    }

    @Test
    void aSnapshotThatWouldInflatePastTheMemoryBoundIsRefusedBeforeAnythingIsAllocated() throws Exception {
        var before = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        fill(before);
        new WindowSnapshots(before, file(), Duration.ofMinutes(1)).write();
        // a header that claims 8 GiB of content (the checksum covers the body, the bound the header)
        byte[] forged = Files.readAllBytes(file());
        java.nio.ByteBuffer.wrap(forged).putLong(WindowSnapshotFile.HEADER_BYTES - Long.BYTES, 8L << 30);
        Files.write(file(), forged);

        var after = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        assertThat(new WindowSnapshots(after, file(), Duration.ofMinutes(1)).restore()).isZero();
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).singleElement().asString()
                .contains("holds 8589934592 bytes, more than the window's memory bound of 1048576");
    }

    @Test
    void theSnapshotFileIsOwnerOnlyAndOffWritesNothing() throws Exception {
        var window = new RecentWindow(HOUR, 1 << 20, AT_T0_PLUS_10M);
        fill(window);
        new WindowSnapshots(window, file(), Duration.ofMinutes(1)).write();
        assertThat(Files.getPosixFilePermissions(file())).extracting(Enum::name)
                .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");

        Files.delete(file());
        var off = new WindowSnapshots(window, file(), Duration.ZERO);
        off.start();
        off.stop();
        assertThat(file()).doesNotExist();
    }

    private Path file() {
        return dataDir.resolve(WindowSnapshotFile.FILE_NAME);
    }

    /** Six reads of db_stats 10 s apart (commit rates 10, 30, reset, 10, 20) and two of one statement. */
    private static void fill(RecentWindow window) {
        long[] commits = {1000, 1100, 1400, 50, 150, 350};
        for (int i = 0; i < commits.length; i++) {
            window.record(List.of(dbStats("a", T0.plusSeconds(10L * i), commits[i], 3)));
        }
        window.record(List.of(measurement("a", "query_texts", T0, row(Map.of("query", "select $1 from t"),
                Map.of("queryid", "42")))));
        for (int i = 0; i < 2; i++) {
            window.record(List.of(measurement("a", "query_stats", T0.plusSeconds(20L * i),
                    row(values("calls", 6, "total_exec_time", 1.5), Map.of("queryid", "42", "dbname", "d")))));
        }
    }
}
