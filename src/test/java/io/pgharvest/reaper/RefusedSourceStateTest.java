package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A source that logs in as a superuser while pgharvest refuses such sessions (the default) reads
 * as refused, with the reason, not as a server that is down: its server answered, so no
 * {@code instance_up = 0} is published for it. Real PostgreSQL, through the real reaper.
 */
class RefusedSourceStateTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void aRefusedSuperuserSourceReadsAsRefusedWithItsReasonAndIsNotReportedDown() throws Exception {
        pg.createDatabase("refused_db");
        var kit = new ReaperTestKit(new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), false, false)));
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        // pg.connStr logs in as the server's superuser.
        var reaper = new SourceReaper(ReaperTestKit.config(source("su_refused", pg.connStr("refused_db"),
                Map.of("one", 10)), List.of(metric("one", "select 1 as a"))), kit.context, timer);
        SourceRuntimeStatus status = ReaperTestKit.runFirstTick(reaper, timer);

        assertThat(status.state().label()).isEqualTo("refused");
        assertThat(status.connected()).isFalse();
        assertThat(status.lastConnectionError()).contains("is a superuser")
                .contains("pgharvest.security.allow-superuser-sources");
        assertThat(kit.publisher.of("su_refused", "instance_up")).as("no instance_up = 0 for a server that answered")
                .isEmpty();
        assertThat(kit.publisher.of("su_refused", "one")).isEmpty();
    }
}
