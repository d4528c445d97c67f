package io.pgharvest.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeldSourcesTest {

    /**
     * The renew loop may free a handed-back source (settle's freeAgain) between its reaper's stop
     * and that reaper's own free; the lease must still carry the reaper's last tick, or the next
     * owner runs the last grid point again (FleetProcessesTest's duplicate audit saw it at a hand-over).
     */
    @Test
    void aHandedBackSourceFreedByTheRenewLoopStillCarriesItsReapersLastTick() {
        var sources = new HeldSources();
        sources.claimed(Set.of("s5"), Map.of());
        assertThat(sources.acquire("s5")).isTrue();
        sources.giveUp(Set.of("s5"));
        Instant last = Instant.parse("2026-12-02T22:00:05.012Z");

        assertThat(sources.released("s5", last)).as("given up: freed now").isTrue();
        HeldSources.Settled settled = sources.settle(Set.of("s5")); // the database still names this instance

        assertThat(settled.freeAgain()).containsExactly("s5");
        assertThat(sources.lastTick("s5")).isEqualTo(last);
        sources.freed("s5");
        assertThat(sources.lastTick("s5")).isNull();
    }

    @Test
    void aSourceClaimedAgainForgetsTheLastTickOfItsEarlierLease() {
        var sources = new HeldSources();
        sources.claimed(Set.of("s1"), Map.of());
        sources.acquire("s1");
        sources.giveUp(Set.of("s1"));
        sources.released("s1", Instant.parse("2026-12-02T22:00:01Z"));

        sources.claimed(Set.of("s1"), Map.of("s1", Instant.parse("2026-12-02T22:00:09Z")));

        assertThat(sources.lastTick("s1")).isNull();
        assertThat(sources.takePreviousTick("s1")).isEqualTo(Instant.parse("2026-12-02T22:00:09Z"));
    }
}
