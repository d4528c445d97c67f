package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A statement running now is in the queries list as running, before it ever finished (so before
 * query_stats counts it), from active_sessions sampling every second through the engine, and is no
 * longer running once it ends. Real PostgreSQL, the shared API application.
 */
class RunningStatementApiTest extends ApiTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "running_statement_db";

    @Test
    void aStatementRunningNowIsListedAsRunningUntilItEnds() throws Exception {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
        assertThat(api().post("/api/v1/sources", Map.of("name", "running-now", "connStr", pg.connStr(DB),
                "metrics", Map.of("active_sessions", 1, "query_stats", 5))).status()).isEqualTo(201);
        try (Connection work = pg.connect(DB); Statement st = work.createStatement()) {
            Thread sleeper = Thread.ofVirtual().start(() -> {
                try {
                    st.execute("select pg_sleep(60) as running_now_probe");
                } catch (Exception e) {
                    // cancelled below: the statement ends
                }
            });
            JsonNode running = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                    .until(() -> runningOnes(), list -> list != null);
            assertThat(running.get("runningSessions").asInt()).isEqualTo(1);
            assertThat(running.get("calls").asDouble()).isZero(); // it has not finished once
            String queryid = running.get("queryid").asString();
            assertThat(queryid).isEqualTo(pg.queryString(DB, "select query_id::text from pg_stat_activity"
                    + " where query like 'select pg_sleep(60) as running_now_probe%'"));

            st.cancel();
            sleeper.join();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                    .until(() -> runningOnes() == null);
        } finally {
            api().delete("/api/v1/sources/running-now");
        }
    }

    /** The listed statement some session runs now, or null. */
    private JsonNode runningOnes() {
        return api().get("/api/v1/sources/running-now/queries").json().get("statements").valueStream()
                .filter(s -> s.get("runningSessions").asInt() > 0).findFirst().orElse(null);
    }
}
