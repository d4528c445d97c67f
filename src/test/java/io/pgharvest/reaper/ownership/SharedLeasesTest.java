package io.pgharvest.reaper.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.support.ChangeNotifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The reapers of one discovering source share its fleet lease: acquired by the first, released by the last. */
@Tag("fast")
class SharedLeasesTest {

    private static final Instant HANDED_OVER_AT = Instant.parse("2026-11-23T01:00:00Z");

    @Test
    void membersOfOneConfiguredSourceAcquireItsLeaseOnceAndReleaseItAfterTheLastHasStopped() {
        var fleet = new RecordingOwnership(Set.of("cluster1"));
        var leases = new SharedLeases(fleet);

        assertThat(leases.acquire("cluster1")).isTrue();
        assertThat(leases.acquire("cluster1")).isTrue();
        assertThat(leases.previousTick("cluster1")).as("every member resumes after the same tick")
                .isEqualTo(HANDED_OVER_AT);
        assertThat(fleet.acquired).containsExactly("cluster1");

        leases.released("cluster1", HANDED_OVER_AT.plusSeconds(20));
        assertThat(fleet.released).as("one member still runs").isEmpty();
        leases.released("cluster1", HANDED_OVER_AT.plusSeconds(10));
        assertThat(fleet.released).containsExactly("cluster1@" + HANDED_OVER_AT.plusSeconds(20));
    }

    @Test
    void aLeaseThisInstanceDoesNotHoldStartsNothing() {
        var fleet = new RecordingOwnership(Set.of("cluster1"));
        var leases = new SharedLeases(fleet);

        assertThat(leases.acquire("elsewhere")).isFalse();
        assertThat(leases.acquire("cluster1")).isTrue();
        fleet.held.remove("cluster1");
        assertThat(leases.acquire("cluster1")).as("lost while a member runs: no further member starts").isFalse();
        leases.released("cluster1", null);
        assertThat(fleet.released).containsExactly("cluster1@null");
    }

    private static final class RecordingOwnership implements SourceOwnership {
        private final Set<String> held;
        private final List<String> acquired = new ArrayList<>();
        private final List<String> released = new ArrayList<>();

        private RecordingOwnership(Set<String> held) {
            this.held = new HashSet<>(held);
        }

        @Override
        public boolean acquire(String source) {
            if (!held.contains(source)) {
                return false;
            }
            acquired.add(source);
            return true;
        }

        @Override
        public Instant previousTick(String source) {
            return HANDED_OVER_AT;
        }

        @Override
        public boolean holds(String source) {
            return held.contains(source);
        }

        @Override
        public void released(String source, Instant lastTick) {
            released.add(source + "@" + lastTick);
        }

        @Override
        public ChangeNotifier changes() {
            return new ChangeNotifier(0);
        }
    }
}
