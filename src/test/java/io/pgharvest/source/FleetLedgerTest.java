package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.SourceKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The fleet status as changes and pages, from the ledger's readings alone (no server). */
class FleetLedgerTest {

    private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

    @Test
    void aTickAloneTravelsAsATickAndAnyOtherChangeAsTheEntry() {
        var ledger = new FleetLedger(1_000);
        var fleet = new ArrayList<>(List.of(entry("a", SourceStatus.State.CONNECTED, T0), entry("b",
                SourceStatus.State.CONNECTED, T0), entry("c", SourceStatus.State.DISABLED, null)));
        long held = page(ledger, fleet, null).changeIndex();

        fleet.set(0, entry("a", SourceStatus.State.CONNECTED, T0.plusSeconds(30)));
        fleet.set(1, entry("b", SourceStatus.State.DISCONNECTED, T0.plusSeconds(30)));
        FleetStatus changes = page(ledger, fleet, held);

        assertThat(changes.whole()).isFalse();
        assertThat(changes.changeIndex()).isEqualTo(held + 1);
        assertThat(changes.ticks()).containsExactly(new FleetTick("a", T0.plusSeconds(30), Duration.ofMillis(5), null));
        assertThat(changes.sources()).extracting(FleetEntry::name).containsExactly("b");
        assertThat(changes.counts()).containsEntry("connected", 1).containsEntry("disconnected", 1)
                .containsEntry("disabled", 1);
        assertThat(changes.total()).isEqualTo(3);

        FleetStatus nothing = page(ledger, fleet, changes.changeIndex());
        assertThat(nothing.changeIndex()).isEqualTo(changes.changeIndex());
        assertThat(nothing.sources()).isEmpty();
        assertThat(nothing.ticks()).isEmpty();
        assertThat(nothing.whole()).isFalse();
    }

    @Test
    void theSameErrorAgainIsATickAndAnotherErrorIsAChange() {
        var ledger = new FleetLedger(1_000);
        var fleet = new ArrayList<>(List.of(failing("a", "connection refused", T0)));
        long held = page(ledger, fleet, null).changeIndex();

        fleet.set(0, failing("a", "connection refused", T0.plusSeconds(8)));
        FleetStatus retried = page(ledger, fleet, held);
        fleet.set(0, failing("a", "password authentication failed", T0.plusSeconds(16)));
        FleetStatus other = page(ledger, fleet, retried.changeIndex());

        assertThat(retried.sources()).isEmpty();
        assertThat(retried.ticks()).containsExactly(new FleetTick("a", null, null, T0.plusSeconds(8)));
        assertThat(other.ticks()).isEmpty();
        assertThat(other.sources()).extracting(FleetEntry::lastError).containsExactly("password authentication failed");
    }

    @Test
    void aSourceRemovedAndAddedAgainIsNamedAsRemovedAndSentAsNew() {
        var ledger = new FleetLedger(1_000);
        var fleet = new ArrayList<>(List.of(entry("a", SourceStatus.State.DISABLED, null),
                entry("b", SourceStatus.State.DISABLED, null)));
        long held = page(ledger, fleet, null).changeIndex();

        fleet.remove(1);
        FleetStatus removed = page(ledger, fleet, held);
        fleet.add(entry("b", SourceStatus.State.CONFIGURED, null));
        FleetStatus again = page(ledger, fleet, held);

        assertThat(removed.removed()).containsExactly("b");
        assertThat(removed.sources()).isEmpty();
        assertThat(again.removed()).containsExactly("b");
        assertThat(again.sources()).extracting(FleetEntry::state).containsExactly(SourceStatus.State.CONFIGURED);
        assertThat(page(ledger, fleet, again.changeIndex()).removed()).isEmpty();
    }

    @Test
    void anIndexOlderThanTheRemovalsKeptOrNotThisLedgersGetsTheWholeFleet() {
        var ledger = new FleetLedger(1_000);
        var fleet = new ArrayList<FleetEntry>();
        IntStream.range(0, FleetLedger.MAX_REMOVALS + 1).forEach(i -> fleet.add(entry("s" + i,
                SourceStatus.State.DISABLED, null)));
        long held = page(ledger, fleet, null).changeIndex();
        assertThat(page(ledger, fleet, 999L).whole()).as("before this ledger's start").isTrue();
        assertThat(page(ledger, fleet, held + 5).whole()).as("after its newest index").isTrue();

        fleet.subList(0, FleetLedger.MAX_REMOVALS).clear();
        long afterBigRemoval = page(ledger, fleet, held).changeIndex();
        fleet.clear();
        FleetStatus answer = page(ledger, fleet, held);

        assertThat(answer.whole()).as("a removal it no longer remembers").isTrue();
        assertThat(page(ledger, fleet, afterBigRemoval).removed()).containsExactly("s" + FleetLedger.MAX_REMOVALS);
    }

    @Test
    void pagesFollowNameOrderAndNameTheNextOne() {
        var ledger = new FleetLedger(1_000);
        List<FleetEntry> fleet = IntStream.range(0, 25).mapToObj(i -> entry("n%02d".formatted(i),
                SourceStatus.State.DISABLED, null)).toList();
        FleetLedger.Picture picture = ledger.read(() -> fleet);

        var seen = new ArrayList<String>();
        String after = null;
        int pages = 0;
        do {
            FleetStatus page = FleetStatus.page(picture, FleetQuery.parse(null, null, null, after, "10"));
            page.sources().forEach(entry -> seen.add(entry.name()));
            after = page.next() == null ? null : page.next().replaceAll(".*after=([^&]+).*", "$1");
            assertThat(page.next() == null || page.next().equals("/api/v1/status?after=" + after + "&limit=10")).isTrue();
            pages++;
        } while (after != null);

        assertThat(pages).isEqualTo(3);
        assertThat(seen).containsExactlyElementsOf(fleet.stream().map(FleetEntry::name).toList());
    }

    private static FleetStatus page(FleetLedger ledger, List<FleetEntry> fleet, Long since) {
        List<FleetEntry> now = List.copyOf(fleet);
        return FleetStatus.page(ledger.read(() -> now),
                FleetQuery.parse(null, null, since == null ? null : since.toString(), null, "1000"));
    }

    private static FleetEntry failing(String name, String error, Instant at) {
        return new FleetEntry(name, SourceKind.defaultKind(), "default", true, SourceStatus.State.DISCONNECTED, null, null,
                3, List.of(), error, at, null, 7);
    }

    private static FleetEntry entry(String name, SourceStatus.State state, Instant tick) {
        return new FleetEntry(name, SourceKind.defaultKind(), "default", state != SourceStatus.State.DISABLED, state,
                tick, tick == null ? null : Duration.ofMillis(5), 3, List.of(), null, null, null, 7);
    }
}
