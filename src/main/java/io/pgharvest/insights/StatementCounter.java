package io.pgharvest.insights;

import java.util.List;

/**
 * The cumulative counters of a pg_stat_statements entry that query_stats turns into per-interval
 * changes, under the name each has in query_stats. A counter is read from the first of its
 * columns that the installed extension has: names differ between versions (1.11, PostgreSQL 17,
 * split {@code blk_read_time} into shared and local times; 1.10 added the JIT and temp I/O times),
 * so a counter the version lacks is simply not collected.
 */
enum StatementCounter {

    CALLS("calls", true),
    TOTAL_EXEC_TIME("total_exec_time", false),
    PLANS("plans", true),
    TOTAL_PLAN_TIME("total_plan_time", false),
    ROWS("rows", true),
    SHARED_BLKS_HIT("shared_blks_hit", true),
    SHARED_BLKS_READ("shared_blks_read", true),
    SHARED_BLKS_DIRTIED("shared_blks_dirtied", true),
    SHARED_BLKS_WRITTEN("shared_blks_written", true),
    LOCAL_BLKS_HIT("local_blks_hit", true),
    LOCAL_BLKS_READ("local_blks_read", true),
    LOCAL_BLKS_DIRTIED("local_blks_dirtied", true),
    LOCAL_BLKS_WRITTEN("local_blks_written", true),
    TEMP_BLKS_READ("temp_blks_read", true),
    TEMP_BLKS_WRITTEN("temp_blks_written", true),
    /** Before 17 {@code blk_read_time}, which also held local block reads. */
    SHARED_BLK_READ_TIME("shared_blk_read_time", false, "blk_read_time"),
    SHARED_BLK_WRITE_TIME("shared_blk_write_time", false, "blk_write_time"),
    LOCAL_BLK_READ_TIME("local_blk_read_time", false),
    LOCAL_BLK_WRITE_TIME("local_blk_write_time", false),
    TEMP_BLK_READ_TIME("temp_blk_read_time", false),
    TEMP_BLK_WRITE_TIME("temp_blk_write_time", false),
    WAL_RECORDS("wal_records", true),
    WAL_FPI("wal_fpi", true),
    WAL_BYTES("wal_bytes", true),
    JIT_FUNCTIONS("jit_functions", true),
    JIT_GENERATION_TIME("jit_generation_time", false),
    JIT_INLINING_TIME("jit_inlining_time", false),
    JIT_OPTIMIZATION_TIME("jit_optimization_time", false),
    JIT_EMISSION_TIME("jit_emission_time", false),
    JIT_DEFORM_TIME("jit_deform_time", false);

    /** The counters in declaration order; the index of each is its {@link #ordinal()}. */
    static final List<StatementCounter> ALL = List.of(values());

    private final String field;
    private final boolean count;
    private final List<String> columns;

    StatementCounter(String field, boolean count, String... olderColumns) {
        this.field = field;
        this.count = count;
        this.columns = olderColumns.length == 0 ? List.of(field) : List.of(field, olderColumns[0]);
    }

    /** The name of its change in query_stats. */
    String field() {
        return field;
    }

    /** A count (delivered as a whole number) rather than milliseconds. */
    boolean isCount() {
        return count;
    }

    /** The columns of pg_stat_statements it may be read from, newest name first. */
    List<String> columns() {
        return columns;
    }
}
