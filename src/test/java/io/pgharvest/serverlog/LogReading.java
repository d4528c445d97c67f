package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SqlReader;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One source's log_* metrics, collected tick after tick on one session the way the engine does
 * (one {@link LogInsightsTail} on the source's shelf), rows kept per category for the assertions.
 */
final class LogReading {

    private final TestPostgres pg;
    private final LogPositions positions;
    private final long budget;
    private final boolean onThisHost;
    private final SqlReader sql;
    private final SourceShelf shelf = new SourceShelf();
    private final Map<LogCategory, List<Measurement.Row>> rows = new EnumMap<>(LogCategory.class);

    /** Reads the destination the server's settings choose, from the file system. */
    LogReading(TestPostgres pg, LogPositions positions, long budget, Connection session) {
        this(pg, positions, budget, true, new JdbcSqlReader(session));
    }

    private LogReading(TestPostgres pg, LogPositions positions, long budget, boolean onThisHost, SqlReader sql) {
        this.pg = pg;
        this.positions = positions;
        this.budget = budget;
        this.onThisHost = onThisHost;
        this.sql = sql;
    }

    /** Reads the destination the server's settings choose, through SQL (pg_ls_logdir, pg_read_binary_file). */
    static LogReading remote(TestPostgres pg, LogPositions positions, long budget, Connection session) {
        return new LogReading(pg, positions, budget, false, new JdbcSqlReader(session));
    }

    /**
     * Reads only {@code destination} of the several a server writes at once, through SQL
     * (pg_ls_logdir, pg_read_binary_file): the session's answer to log_destination says only it, so
     * one run of a workload is read in each format.
     */
    static LogReading onlyOf(TestPostgres pg, String destination, Connection session) {
        var jdbc = new JdbcSqlReader(session);
        SqlReader seeingOne = (query, parameters) -> {
            List<Map<String, Object>> answer = jdbc.query(query, parameters);
            if (!query.equals(LogSettings.SQL)) {
                return answer;
            }
            var settings = new LinkedHashMap<>(answer.getFirst());
            settings.put("log_destination", destination);
            return List.of(settings);
        };
        return new LogReading(pg, LogPositions.inMemory(), LogInsightsTail.READ_BUDGET, false, seeingOne);
    }

    /** Collects every category once (one tick); unavailable ones are left out. */
    void tick() throws Exception {
        Instant now = Instant.now();
        for (LogCategory category : LogCategory.values()) {
            try {
                rows.computeIfAbsent(category, c -> new ArrayList<>()).addAll(collect(category, now));
            } catch (NativeMetric.Unavailable e) {
                // a category the server does not log as it needs: not part of this reading
            }
        }
    }

    List<Measurement.Row> collect(LogCategory category) throws Exception {
        return collect(category, Instant.now());
    }

    private List<Measurement.Row> collect(LogCategory category, Instant now) throws Exception {
        var target = new NativeTarget("logs", "postgres", pg.majorVersion(), ":0", onThisHost, sql,
                Duration.ofSeconds(60), now, null, GenericPlans.NONE, shelf, InstanceShelf.NONE, false);
        LogInsightsTail tail = shelf.item(LogInsightsTail.class, () -> new LogInsightsTail("logs", positions, budget));
        return tail.collect(category, target);
    }

    /** Ticks until a row of {@code category} matches, returns it. */
    Measurement.Row until(LogCategory category, Predicate<Measurement.Row> wanted) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            tick();
            assertThat(rows.get(category)).as(category.metric()).anyMatch(wanted);
        });
        return rows.get(category).stream().filter(wanted).findFirst().orElseThrow();
    }

    List<Measurement.Row> rows(LogCategory category) {
        return rows.getOrDefault(category, List.of());
    }

    void assertNoValueContains(String literal) {
        rows.forEach((category, list) -> list.forEach(row -> {
            row.values().forEach((column, value) -> assertThat(String.valueOf(value))
                    .as("%s.%s", category.metric(), column).doesNotContain(literal));
            row.tags().forEach((tag, value) -> assertThat(value).as("%s tag %s", category.metric(), tag)
                    .doesNotContain(literal));
        }));
    }
}
