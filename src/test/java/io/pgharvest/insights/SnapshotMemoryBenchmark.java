package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The heap one query_stats snapshot entry takes (docs/query-insights.md, "Memory"): builds
 * snapshots of 50,000 entries with every counter of PostgreSQL 17+ (30) and of 14 (20), the way
 * the collector builds them from a read, and prints the retained heap per entry as
 * {@code [snapshot-memory]} lines. A measurement outside the normal build:
 * {@code ./mvnw -B -o -Dtest=SnapshotMemoryBenchmark -Dtest.excludedGroups= -Dsurefire.failIfNoSpecifiedTests=false test}.
 */
@Tag("benchmark")
class SnapshotMemoryBenchmark {

    private static final int ENTRIES = 50_000;

    @Test
    void bytesPerSnapshotEntry() {
        List<StatementCounter> all = StatementCounter.ALL;
        List<StatementCounter> pg14 = all.stream().filter(c -> !c.field().startsWith("jit_")
                && !c.field().startsWith("local_blk_") && !c.field().startsWith("temp_blk_")).toList();
        for (List<StatementCounter> counters : List.of(all, pg14)) {
            long before = usedAfterGc();
            StatementSnapshot snapshot = build(counters);
            long after = usedAfterGc();
            double perEntry = (after - before) / (double) ENTRIES;
            System.out.printf("[snapshot-memory] %d counters: %.0f bytes per entry (%d entries, %d bytes)%n",
                    counters.size(), perEntry, snapshot.entries().size(), after - before);
            assertThat(snapshot.entries()).hasSize(ENTRIES);
        }
    }

    private static StatementSnapshot build(List<StatementCounter> counters) {
        // Rows in chunks, as the driver's result would be garbage after the read.
        var entries = new HashMap<StatementKey, double[]>();
        for (int from = 0; from < ENTRIES; from += 1000) {
            var rows = new ArrayList<Map<String, Object>>();
            for (int i = from; i < from + 1000; i++) {
                var row = new HashMap<String, Object>();
                row.put("queryid", (long) i * 7919);
                row.put("userid", 10L + i % 3);
                row.put("toplevel", true);
                row.put("rolname", "role" + i % 3);
                row.put("dealloc", 0L);
                counters.forEach(c -> row.put(c.field(), 1.0));
                rows.add(row);
            }
            entries.putAll(StatementSnapshot.of(Instant.now(), counters, rows).entries());
        }
        return new StatementSnapshot(Instant.now(), 0, null, counters, entries, Map.of());
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
