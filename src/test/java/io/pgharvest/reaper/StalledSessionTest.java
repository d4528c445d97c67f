package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.FreezableProxy;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** A server that stops answering mid-tick shows as stalled, not connected, long before the socket times out. */
class StalledSessionTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void aSessionThatStopsAnsweringShowsAsStalledWithinTheStatementTimeout() throws Exception {
        pg.createDatabase("stalled_db");
        try (var proxy = new FreezableProxy(pg.host(), pg.port())) {
            String connStr = "postgresql://" + TestPostgres.SUPERUSER + "@127.0.0.1:" + proxy.port() + "/stalled_db";
            var kit = new ReaperTestKit();
            var reaper = new SourceReaper(ReaperTestKit.config(source("stalling", connStr, Map.of("one", 1)),
                    List.of(metric("one", "select 1 as a"))), kit.context, TickTimer.system(Clock.systemUTC()));
            reaper.start();
            try {
                kit.publisher.await(m -> m.metric().equals("one"), 1, Duration.ofSeconds(15));
                assertThat(reaper.status().state()).isEqualTo(SessionState.CONNECTED);
                proxy.freeze();

                // Socket timeout 1 min in the test kit; the statement timeout (5 s) bounds the wait.
                SourceRuntimeStatus stalled = Awaitility.await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(200)).until(reaper::status,
                                s -> s.state() == SessionState.STALLED);
                assertThat(stalled.lastConnectionError()).contains("no answer from the server");
            } finally {
                reaper.stop();
                reaper.awaitStop(Duration.ofSeconds(2));
            }
        }
    }
}
