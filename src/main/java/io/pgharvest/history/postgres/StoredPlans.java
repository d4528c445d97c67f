package io.pgharvest.history.postgres;

import io.pgharvest.window.Plan;
import io.pgharvest.window.TimeRange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A statement's plans over a range from the stored {@code query_plans} rows: consecutive reads of
 * one plan hash in one database make a run; each run is one {@link Plan} with its newest plan
 * text, when the run began ({@code changedAt}: the plan changed between the previous run's last
 * read and it) and the hash it replaced. The server groups the runs; only each run's newest plan
 * text is fetched.
 */
final class StoredPlans {

    /** The most runs a range lists, newest first. */
    static final int MAX_RUNS = 50;
    /** A stored plan longer than this is listed without its text. */
    static final int MAX_PLAN_CHARS = 256 * 1024;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static final String RUNS = """
            WITH reads AS (
                SELECT time, coalesce(tag_data ->> 'dbname', '') AS db, data ->> 'plan_hash' AS hash,
                       lag(data ->> 'plan_hash') OVER (PARTITION BY tag_data ->> 'dbname' ORDER BY time) AS before
                  FROM public.query_plans
                 WHERE dbname = ? AND time >= ? AND time < ? AND tag_data ->> 'queryid' = ?
            ),
            numbered AS (
                SELECT *, count(*) FILTER (WHERE before IS DISTINCT FROM hash)
                              OVER (PARTITION BY db ORDER BY time) AS run
                  FROM reads
            ),
            runs AS (
                SELECT db, run, min(hash) AS hash, min(time) AS first_read, max(time) AS last_read
                  FROM numbered GROUP BY db, run
            )
            SELECT r.db, r.hash, r.first_read, r.last_read,
                   (SELECT q.data ->> 'plan' FROM public.query_plans q
                     WHERE q.dbname = ? AND q.time = r.last_read AND q.tag_data ->> 'queryid' = ?
                       AND coalesce(q.tag_data ->> 'dbname', '') = r.db LIMIT 1) AS plan
              FROM runs r
             ORDER BY r.db, r.run
            """;

    private StoredPlans() {
    }

    static List<Plan> runs(Connection c, String source, String queryid, TimeRange range) throws SQLException {
        var plans = new ArrayList<Plan>();
        Map<String, Plan> previous = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(RUNS)) {
            s.setString(1, source);
            PostgresHistoryReader.bindRange(s, 2, range.from(), range.to());
            s.setString(4, queryid);
            s.setString(5, source);
            s.setString(6, queryid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String db = rs.getString(1);
                    Instant first = rs.getObject(3, java.time.OffsetDateTime.class).toInstant();
                    Instant last = rs.getObject(4, java.time.OffsetDateTime.class).toInstant();
                    Plan before = previous.get(db);
                    String text = rs.getString(5);
                    String omitted = omission(text);
                    var plan = new Plan(db, queryid, omitted == null ? text : null, rs.getString(2), last,
                            before == null ? null : before.hash(), before == null ? null : before.readAt(),
                            before == null ? null : first, omitted);
                    previous.put(db, plan);
                    plans.add(plan);
                }
            }
        }
        plans.sort((a, b) -> b.readAt().compareTo(a.readAt()));
        return plans.size() > MAX_RUNS ? List.copyOf(plans.subList(0, MAX_RUNS)) : plans;
    }

    /** Why a stored plan is not shown, or null: the answer embeds it as JSON, so it must be JSON. */
    private static String omission(String text) {
        if (text == null) {
            return "no plan text stored";
        }
        if (text.length() > MAX_PLAN_CHARS) {
            return "larger than " + MAX_PLAN_CHARS + " characters";
        }
        try {
            JSON.readTree(text);
            return null;
        } catch (JacksonException e) {
            return "not JSON";
        }
    }
}
