package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The window's memory as the heap sees it: fills a window to its point cap and compares the live
 * heap it adds with what its {@link MemoryBudget} counts, so the bound the budget enforces is the
 * memory really held (the figures are in docs/console.md).
 */
@Tag("fast")
class RecentWindowMemoryTest {

    private static final int SOURCES = 50;
    private static final int ROWS = 20; // connections rows per source, one series each
    private static final int POINTS = 720;

    @Test
    void theBudgetCountsTheHeapTheSeriesHold() {
        Instant t0 = Instant.parse("2026-11-27T10:00:00Z");
        var window = new RecentWindow(new WindowLimits(3_600_000, POINTS, 1000), 1L << 30,
                Clock.fixed(t0.plusSeconds(POINTS * 5L), ZoneOffset.UTC));
        long before = liveHeap();
        for (int t = 0; t < POINTS; t++) {
            var batch = new ArrayList<Measurement>(SOURCES);
            for (int s = 0; s < SOURCES; s++) {
                var rows = new ArrayList<Measurement.Row>(ROWS);
                for (int r = 0; r < ROWS; r++) {
                    rows.add(new Measurement.Row(Map.of("processes", t + r), Map.of("state", "state-" + r,
                            "backend_type", "client backend")));
                }
                batch.add(new Measurement("source-" + s, "connections", t0.plusSeconds(5L * t), rows, Map.of()));
            }
            window.record(batch);
        }
        long held = liveHeap() - before;
        long counted = window.budget().reserved();
        int series = window.seriesCount();
        System.out.printf("recent window: %d series x %d points: heap %,d bytes (%,d per series), budget %,d bytes%n",
                series, POINTS, held, held / series, counted);

        assertThat(series).isEqualTo(SOURCES * ROWS);
        assertThat(window.read("source-0", 0, java.util.Set.of()).getFirst().values()).hasSize(POINTS);
        assertThat(held).isLessThanOrEqualTo(counted * 11 / 10).isGreaterThanOrEqualTo(counted * 8 / 10);
    }

    /**
     * The database views' rows at fleet scale ({@link FleetViewReads}: 1,000 tables, 1,000 indexes,
     * 300 sessions a source): the heap they add against what the budget counts, and the split of the
     * count between view rows and the rest (the sessions' samples). {@code -Dviews.sources=300} weighs
     * the benchmark's fleet (heap permitting); 20 by default.
     */
    @Test
    void theBudgetCountsTheHeapTheViewRowsHold() {
        int sources = Integer.getInteger("views.sources", 20);
        Instant t0 = Instant.parse("2026-11-27T10:00:00Z");
        var window = new RecentWindow(new WindowLimits(3_600_000, POINTS, 1000), 4L << 30,
                Clock.fixed(t0.plusSeconds(120), ZoneOffset.UTC));
        long before = liveHeap();
        for (int read = 0; read < 2; read++) {
            for (int s = 0; s < sources; s++) {
                window.record(FleetViewReads.of("source-" + s, s, t0.plusSeconds(60L * read)));
            }
        }
        long held = liveHeap() - before;
        long counted = window.budget().reserved();
        long viewRows = window.reads().keptBytes();
        System.out.printf("recent window views: %d sources: heap %,d bytes (%,d a source), budget %,d (%,d a source):"
                + " view rows %,d a source, the rest %,d a source%n", sources, held, held / sources, counted,
                counted / sources, viewRows / sources, (counted - viewRows) / sources);

        assertThat(window.reads().refusedReads()).isZero();
        assertThat(held).isLessThanOrEqualTo(counted * 11 / 10).isGreaterThanOrEqualTo(counted * 7 / 10);
    }

    private static long liveHeap() {
        var memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
