package io.pgharvest.reaper.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The binary search over a source's suspects, one trial at a time (SeveralCulpritsTest runs it on a server). */
@Tag("fast")
class SuspectGroupsTest {

    private static final Set<String> ALL = Set.of("a", "b", "c", "d", "e", "f", "g", "h");

    private final SuspectGroups suspects = new SuspectGroups();

    @Test
    void aGroupKnownToFailIsHalvedAndAfterAHealthyHalfItsRestIsHalvedInTurn() {
        suspects.failedTogether(List.of("a", "b", "c", "d", "e", "f", "g", "h"));

        assertThat(suspects.nextTrial(ALL)).containsExactly("a", "b", "c", "d");
        List.of("a", "b", "c", "d").forEach(suspects::cleared);

        // The culprit is in e..h: never run whole, halved.
        assertThat(suspects.nextTrial(ALL)).containsExactly("e", "f");
        assertThat(suspects.contains("a")).isFalse();
        assertThat(suspects.contains("e")).isTrue();
    }

    @Test
    void afterAHalfFailsTheRestIsTriedWholeAndTheFailedHalfIsHalvedAfterIt() {
        suspects.failedTogether(List.of("a", "b", "c", "d", "e", "f", "g", "h"));
        suspects.failedTogether(suspects.nextTrial(ALL));

        assertThat(suspects.nextTrial(ALL)).containsExactly("e", "f", "g", "h");
        List.of("e", "f", "g", "h").forEach(suspects::cleared);
        assertThat(suspects.nextTrial(ALL)).containsExactly("a", "b");
    }

    @Test
    void aSuspectThatFailsAloneMayHaveBeenTheCulpritSoTheRestOfItsGroupIsTriedWhole() {
        suspects.failedTogether(List.of("a", "b", "c"));
        assertThat(suspects.nextTrial(Set.of("a"))).containsExactly("a");

        suspects.isolated("a");

        assertThat(suspects.nextTrial(ALL)).containsExactly("b", "c");
        assertThat(suspects.contains("a")).isFalse();
    }

    @Test
    void aSuspectThatSucceedsAloneLeavesTheCulpritInTheRestOfItsGroup() {
        suspects.failedTogether(List.of("a", "b", "c"));

        suspects.cleared("a");

        assertThat(suspects.nextTrial(ALL)).containsExactly("b");
    }

    @Test
    void aCulpritRemovedFromTheConfigurationMidSearchLetsItsGroupBeTriedWhole() {
        suspects.failedTogether(List.of("a", "b", "c", "d"));

        suspects.retainOnly(Set.of("b", "c", "d"));

        assertThat(suspects.nextTrial(ALL)).containsExactly("b", "c", "d");
        assertThat(suspects.contains("a")).isFalse();
    }

    @Test
    void onlyTheDueMembersOfAGroupAreTriedAndThenWhole() {
        suspects.failedTogether(List.of("a", "b", "c", "d"));

        assertThat(suspects.nextTrial(Set.of("b", "d"))).containsExactly("b", "d");
        assertThat(suspects.nextTrial(Set.of())).isEmpty();
    }

    @Test
    void groupsAreServedOldestFirstAndARequeuedOneGoesBehind() {
        suspects.failedTogether(List.of("a", "b"));
        suspects.failedTogether(List.of("c", "d"));
        assertThat(suspects.nextTrial(ALL)).containsExactly("a");

        suspects.requeue("a");

        assertThat(suspects.nextTrial(ALL)).containsExactly("c");
    }
}
