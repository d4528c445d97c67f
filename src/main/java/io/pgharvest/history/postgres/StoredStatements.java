package io.pgharvest.history.postgres;

import io.pgharvest.window.Statement;
import io.pgharvest.window.TimeRange;
import io.pgharvest.window.WaitShare;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A source's statements over a range from the stored {@code query_stats} rows: each row is the
 * delta of one collection interval, so a range's cost is their sum per (query id, database, role,
 * top level), the {@code other} row (statements outside the top N, summed) kept as its own
 * statement, and {@code approximate} true when any interval summed was. Texts from
 * {@code query_texts}, the newest plan change within the range from {@code query_plans}, wait
 * shares from {@code query_samples}.
 */
final class StoredStatements {

    static final String TOP = """
            SELECT tag_data ->> 'queryid' AS queryid, coalesce(tag_data ->> 'dbname', '') AS dbname,
                   coalesce(tag_data ->> 'user', '') AS "user", coalesce(tag_data ->> 'toplevel', '') AS toplevel,
                   coalesce(sum((data ->> 'calls')::float8), 0) AS calls,
                   coalesce(sum((data ->> 'total_exec_time')::float8), 0) AS total_exec_time,
                   coalesce(sum((data ->> 'rows')::float8), 0) AS rows,
                   coalesce(sum((data ->> 'shared_blks_read')::float8), 0) AS shared_blks_read,
                   bool_or(coalesce((data ->> 'approximate')::boolean, false)) AS approximate
              FROM public.query_stats
             WHERE dbname = ? AND time >= ? AND time < ? AND tag_data ->> 'queryid' IS NOT NULL
             GROUP BY 1, 2, 3, 4
             ORDER BY 6 DESC, 1
             LIMIT ?
            """;

    static final String TEXTS = """
            SELECT DISTINCT ON (tag_data ->> 'queryid') tag_data ->> 'queryid', data ->> 'query'
              FROM public.query_texts
             WHERE dbname = ? AND tag_data ->> 'queryid' = ANY (?)
             ORDER BY tag_data ->> 'queryid', time DESC
            """;

    /** The newest plan change per statement and database within the range: a plan hash read after another. */
    static final String PLAN_CHANGES = """
            SELECT db, queryid, max(time) AS changed_at
              FROM (SELECT time, coalesce(tag_data ->> 'dbname', '') AS db, tag_data ->> 'queryid' AS queryid,
                           data ->> 'plan_hash' AS hash,
                           lag(data ->> 'plan_hash') OVER (PARTITION BY tag_data ->> 'dbname', tag_data ->> 'queryid'
                                                           ORDER BY time) AS before
                      FROM public.query_plans
                     WHERE dbname = ? AND time >= ? AND time < ?) reads
             WHERE before IS DISTINCT FROM hash AND before IS NOT NULL
             GROUP BY 1, 2
            """;

    static final String WAITS = """
            SELECT coalesce(tag_data ->> 'wait_event_type', data ->> 'wait_event_type', '') AS wait_event_type,
                   coalesce(tag_data ->> 'wait_event', data ->> 'wait_event', '') AS wait_event,
                   count(*) AS samples
              FROM public.query_samples
             WHERE dbname = ? AND time >= ? AND time < ?
               AND (?::text IS NULL OR coalesce(tag_data ->> 'queryid', data ->> 'queryid') = ?::text)
             GROUP BY 1, 2
            """;

    private StoredStatements() {
    }

    static List<Statement> top(Connection c, String source, TimeRange range, int limit) throws SQLException {
        var statements = new ArrayList<Statement>();
        try (PreparedStatement s = c.prepareStatement(TOP)) {
            s.setString(1, source);
            PostgresHistoryReader.bindRange(s, 2, range.from(), range.to());
            s.setInt(4, limit);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    double calls = rs.getDouble("calls");
                    double time = rs.getDouble("total_exec_time");
                    statements.add(new Statement(rs.getString("queryid"), rs.getString("dbname"), rs.getString("user"),
                            rs.getString("toplevel"), calls, time, calls > 0 ? time / calls : null,
                            rs.getDouble("rows"), rs.getDouble("shared_blks_read"), null, null, 0,
                            rs.getBoolean("approximate")));
                }
            }
        }
        Map<String, String> texts = texts(c, source, statements.stream().map(Statement::queryid).distinct().toList());
        Map<List<String>, Instant> changes = planChanges(c, source, range);
        return statements.stream().map(st -> with(st, texts.get(st.queryid()),
                changes.get(List.of(st.dbname(), st.queryid())))).toList();
    }

    static String text(Connection c, String source, String queryid) throws SQLException {
        return texts(c, source, List.of(queryid)).get(queryid);
    }

    /** The newest stored text of each query id; a missing query_texts table means none. */
    private static Map<String, String> texts(Connection c, String source, List<String> queryids) throws SQLException {
        var texts = new HashMap<String, String>();
        if (queryids.isEmpty()) {
            return texts;
        }
        try (PreparedStatement s = c.prepareStatement(TEXTS)) {
            s.setString(1, source);
            s.setArray(2, c.createArrayOf("text", queryids.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    texts.put(rs.getString(1), rs.getString(2));
                }
            }
        } catch (SQLException e) {
            if (!"42P01".equals(e.getSQLState())) {
                throw e;
            }
        }
        return texts;
    }

    static List<WaitShare> waits(Connection c, String source, String queryid, TimeRange range) throws SQLException {
        var counts = new LinkedHashMap<List<String>, Long>();
        try (PreparedStatement s = c.prepareStatement(WAITS)) {
            s.setString(1, source);
            PostgresHistoryReader.bindRange(s, 2, range.from(), range.to());
            s.setString(4, queryid);
            s.setString(5, queryid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    counts.put(List.of(rs.getString(1), rs.getString(2)), rs.getLong(3));
                }
            }
        }
        return WaitShare.of(counts);
    }

    private static Statement with(Statement s, String text, Instant planChangedAt) {
        return new Statement(s.queryid(), s.dbname(), s.user(), s.toplevel(), s.calls(), s.totalExecTime(),
                s.meanExecTime(), s.rows(), s.sharedBlksRead(), text, planChangedAt, s.runningSessions(),
                s.approximate());
    }

    /** (database, query id) to the newest plan change in the range; a missing query_plans table means none. */
    private static Map<List<String>, Instant> planChanges(Connection c, String source, TimeRange range)
            throws SQLException {
        var changes = new HashMap<List<String>, Instant>();
        try (PreparedStatement s = c.prepareStatement(PLAN_CHANGES)) {
            s.setString(1, source);
            PostgresHistoryReader.bindRange(s, 2, range.from(), range.to());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    changes.put(List.of(rs.getString(1), rs.getString(2)),
                            rs.getObject(3, java.time.OffsetDateTime.class).toInstant());
                }
            }
        } catch (SQLException e) {
            if (!"42P01".equals(e.getSQLState())) {
                throw e;
            }
        }
        return changes;
    }
}
