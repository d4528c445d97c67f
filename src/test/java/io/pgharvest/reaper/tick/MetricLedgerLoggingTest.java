package io.pgharvest.reaper.tick;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A metric that fails on every tick is logged when it starts failing and when it recovers, not per tick. */
@ExtendWith(OutputCaptureExtension.class)
@Tag("fast")
class MetricLedgerLoggingTest {

    @Test
    void failuresAreLoggedOncePerChangeOfState(CapturedOutput output) {
        var ledger = new MetricLedger("db1");
        Instant t = Instant.parse("2026-01-01T00:00:00Z");

        ledger.succeeded("locks", t);
        for (int tick = 1; tick <= 5; tick++) {
            ledger.failed("locks", "metric locks failed [SQLState 42P01]: relation gone", t.plusSeconds(tick));
        }
        ledger.succeeded("locks", t.plusSeconds(6));
        ledger.succeeded("locks", t.plusSeconds(7));
        ledger.failed("locks", "metric locks failed [SQLState 42P01]: relation gone", t.plusSeconds(8));

        assertThat(output.getOut().lines().filter(l -> l.contains("metric locks failed"))).hasSize(2);
        assertThat(output.getOut().lines().filter(l -> l.contains("metric locks works again"))).hasSize(1);
        assertThat(ledger.lastError("locks")).contains("relation gone");
        assertThat(ledger.lastSuccess("locks")).isEqualTo(t.plusSeconds(7));
    }
}
