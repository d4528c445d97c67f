package io.pgharvest.insights;

import java.sql.Array;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One sampling of the sessions that are not idle, by database: what active_sessions reads each
 * time it runs. The statement reads {@code pg_stat_activity} only (a scan of shared memory, no
 * catalog lookups but the database names and role names the view joins), calls
 * {@code pg_blocking_pids} only for sessions waiting on a lock, never reads a statement text and
 * leaves out the reading session and every session of pgharvest's own reapers (application name
 * {@code pgharvest}): at one read a second the collector's own short reads would otherwise be most
 * of what it sees.
 *
 * @param at when it was read
 * @param byDatabase the sessions of each database
 */
record SessionSampling(Instant at, Map<String, List<Session>> byDatabase) implements SharedRead.Timed {

    /** At most this many sessions a database, longest-running first (as query_samples). */
    static final int MAX_PER_DATABASE = 200;

    private static final String SELECT = """
            select /* pgharvest */ datname::text as datname, pid, query_id, state,
                   coalesce(wait_event_type, '') as wait_event_type, coalesce(wait_event, '') as wait_event,
                   extract(epoch from clock_timestamp() - query_start)::float8 as duration_s,
                   extract(epoch from clock_timestamp() - xact_start)::float8 as transaction_duration_s,
                   case when wait_event_type = 'Lock' then pg_blocking_pids(pid) end as blocking_pids,
                   coalesce(backend_type, '') as backend_type, coalesce(application_name, '') as application_name,
                   coalesce(usename::text, '') as user_name
              from pg_catalog.pg_stat_activity
             where state is not null and state <> 'idle' and pid <> pg_backend_pid()
               and application_name is distinct from 'pgharvest'
            """;

    /** This database's sessions. */
    static final String DATABASE_SQL = SELECT + """
               and datname = current_database()
             order by query_start nulls last, pid
             limit %d""".formatted(MAX_PER_DATABASE);

    /** Every database's sessions (an instance's shared sampling), ordered as {@link #DATABASE_SQL} per database. */
    static final String INSTANCE_SQL = SELECT + """
               and datname is not null
             order by datname, query_start nulls last, pid""";

    /**
     * One session at one sampling.
     *
     * @param queryId the statement's query id, null when the server computes none (yet)
     * @param blockingPids the sessions holding the lock it waits for, comma-separated ("" when none)
     */
    record Session(int pid, Long queryId, String state, String waitEventType, String waitEvent, Double duration,
            Double transactionDuration, String blockingPids, int blockedBy, String backendType,
            String applicationName, String userName) {
    }

    /** A sampling of the rows of {@link #DATABASE_SQL} or {@link #INSTANCE_SQL}. */
    static SessionSampling of(Instant at, List<Map<String, Object>> rows) throws SQLException {
        var byDatabase = new HashMap<String, List<Session>>();
        for (Map<String, Object> row : rows) {
            List<Session> sessions = byDatabase.computeIfAbsent((String) row.get("datname"), d -> new ArrayList<>());
            if (sessions.size() >= MAX_PER_DATABASE) {
                continue;
            }
            int[] blocking = pids(row.get("blocking_pids"));
            var joined = new StringBuilder();
            for (int pid : blocking) {
                joined.append(joined.isEmpty() ? "" : ",").append(pid);
            }
            sessions.add(new Session(((Number) row.get("pid")).intValue(),
                    row.get("query_id") instanceof Number id ? id.longValue() : null, (String) row.get("state"),
                    (String) row.get("wait_event_type"), (String) row.get("wait_event"),
                    row.get("duration_s") instanceof Number d ? d.doubleValue() : null,
                    row.get("transaction_duration_s") instanceof Number t ? t.doubleValue() : null,
                    joined.toString(), blocking.length, (String) row.get("backend_type"),
                    (String) row.get("application_name"), (String) row.get("user_name")));
        }
        byDatabase.replaceAll((database, sessions) -> List.copyOf(sessions));
        return new SessionSampling(at, Map.copyOf(byDatabase));
    }

    /** The sessions of {@code database} at this sampling. */
    List<Session> of(String database) {
        return byDatabase.getOrDefault(database, List.of());
    }

    private static int[] pids(Object value) throws SQLException {
        if (value == null) {
            return new int[0];
        }
        Object array = value instanceof Array sqlArray ? sqlArray.getArray() : value;
        if (array instanceof Integer[] boxed) {
            int[] pids = new int[boxed.length];
            for (int i = 0; i < boxed.length; i++) {
                pids[i] = boxed[i];
            }
            return pids;
        }
        return array instanceof int[] plain ? plain : new int[0];
    }
}
