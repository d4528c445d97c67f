package io.pgharvest.window;

import static io.pgharvest.window.RecentWindowTest.dbStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The feed records off the caller's thread, and again after a stop and a start (a paused context). */
class WindowFeedTest {

    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    @Test
    void aFeedStoppedAndStartedAgainKeepsRecording() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100), 1 << 20,
                Clock.fixed(T0.plusSeconds(600), ZoneOffset.UTC));
        var feed = new WindowFeed(window, 16);
        feed.start();
        feed.observe(List.of(dbStats("a", T0, 100, 1), dbStats("a", T0.plusSeconds(10), 200, 1)));
        await().atMost(Duration.ofSeconds(5)).until(() -> !window.read("a", 0, Set.of("db_stats")).isEmpty());

        feed.stop();
        assertThat(feed.isRunning()).isFalse();
        feed.start();
        assertThat(feed.isRunning()).isTrue();
        feed.observe(List.of(dbStats("b", T0, 100, 1), dbStats("b", T0.plusSeconds(10), 200, 1)));
        await().atMost(Duration.ofSeconds(5)).until(() -> !window.read("b", 0, Set.of("db_stats")).isEmpty());
        feed.stop();
    }
}
