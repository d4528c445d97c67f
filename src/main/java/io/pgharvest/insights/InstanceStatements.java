package io.pgharvest.insights;

import java.time.Instant;
import java.util.Map;

/**
 * query_stats' one read of pg_stat_statements per PostgreSQL instance and interval, shared by the
 * collectors of the instance's databases (the rules of {@link SharedRead}). The view is
 * instance-wide: every database's entries are visible from any database where the extension is
 * created, so one member whose database has it reads all of them and each member takes its own
 * database's entries ({@link Read#snapshotOf}). Thread-safe.
 */
final class InstanceStatements extends SharedRead<InstanceStatements.Read> {

    /**
     * One read of the whole instance, split by database.
     *
     * @param at when it was read
     * @param empty the snapshot of a database without entries (the read's dealloc and reset, no entries)
     * @param byDatabase each database's entries, by database name
     */
    record Read(Instant at, StatementSnapshot empty, Map<String, StatementSnapshot> byDatabase)
            implements SharedRead.Timed {

        /** The entries of {@code database} in this read. */
        StatementSnapshot snapshotOf(String database) {
            return byDatabase.getOrDefault(database, empty);
        }
    }
}
