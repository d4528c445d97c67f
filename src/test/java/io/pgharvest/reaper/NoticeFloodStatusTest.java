package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.SessionState;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A metric whose SQL raises thousands of notices on a tick: the tick delivers both metrics, the
 * source stays connected, and its status names the flood once (kind.postgres.NoticeFloodTest has
 * the allocation and the counts).
 */
class NoticeFloodStatusTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void aFloodOfNoticesIsNamedInTheStatusAndTheTickIsWhole() throws Exception {
        pg.createDatabase("notice_status_db");
        pg.execute("notice_status_db", """
                create or replace function public.chatty(n int) returns int language plpgsql stable as $f$
                begin
                    for i in 1 .. n loop
                        raise notice 'chatty %', repeat('c', 1000);
                    end loop;
                    return n;
                end $f$""");
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(source("chatty", pg.connStr("notice_status_db"),
                Map.of("flooded", 10, "one", 10)), List.of(metric("flooded", "select public.chatty(5000) as n"),
                metric("one", "select 1 as a"))), kit.context, timer);
        var status = ReaperTestKit.runFirstTick(reaper, timer);

        assertThat(status.state()).isEqualTo(SessionState.CONNECTED);
        assertThat(status.metrics()).allSatisfy(m -> assertThat(m.lastError()).isNull());
        assertThat(status.metrics()).allSatisfy(m -> assertThat(m.lastSuccess()).isNotNull());
        assertThat(status.noticeWarning()).contains("more notices than pgharvest keeps per round trip")
                .contains("4984 dropped");
    }
}
