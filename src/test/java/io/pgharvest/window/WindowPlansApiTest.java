package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Plans in the recent window over the API, from a real source on a real PostgreSQL: a top SELECT's
 * generic plan (collected by query_plans as a pg_monitor + pg_read_all_data role) is served with
 * its statement, and after the index it used is dropped the next plan (plan-every is 5 s in the
 * API tests' context) comes with the hash it replaced and the time of the change. A query id that
 * is not one is named in problem details.
 */
class WindowPlansApiTest extends ApiTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "window_plans_db";
    private static final String SELECT = "select name from plan_orders where status = ?";

    @Test
    void aPlanChangeAfterAnIndexIsDroppedShowsWithThePreviousHashAndTheTimeOfTheChange() throws Exception {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
        pg.execute(DB, "create table plan_orders (id int primary key, status text, name text)");
        pg.execute(DB, "insert into plan_orders select i, 'status-' || i, 'n' || i from generate_series(1, 5000) i");
        pg.execute(DB, "create index plan_orders_status on plan_orders (status)");
        pg.execute(DB, "analyze plan_orders");
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = 'plans_api_monitor')"
                + " then create role plans_api_monitor login in role pg_monitor, pg_read_all_data; end if; end $$");
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> runSelects(running));
        try {
            assertThat(api().post("/api/v1/sources", Map.of("name", "window-plans",
                    "connStr", pg.connStr(DB).replace("postgres@", "plans_api_monitor@"),
                    "metrics", Map.of("query_stats", 1, "query_texts", 1, "query_plans", 1))).status()).isEqualTo(201);
            String queryid = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> pg.queryString(DB, "select coalesce((select queryid::text from pg_stat_statements"
                            + " where query = 'select name from plan_orders where status = $1' limit 1), '')"),
                            id -> !id.isEmpty());
            String path = "/api/v1/sources/window-plans/queries/" + queryid;

            JsonNode first = Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
                    .until(() -> api().get(path).json(), body -> body.get("plans").size() == 1);
            JsonNode indexed = first.at("/plans/0");
            assertThat(indexed.get("dbname").asString()).isEqualTo(DB);
            assertThat(indexed.get("queryid").asString()).isEqualTo(queryid);
            assertThat(indexed.get("plan").isArray()).isTrue(); // EXPLAIN's JSON embedded as JSON, not as a string
            assertThat(indexed.get("plan").toString()).contains("plan_orders_status").contains("$1");
            String indexedHash = indexed.get("hash").asString();
            assertThat(indexedHash).matches("[0-9a-f]{16}");
            Instant indexedAt = Instant.parse(indexed.get("readAt").asString());
            assertThat(indexed.get("previousHash").isNull()).isTrue();
            assertThat(indexed.get("changedAt").isNull()).isTrue();
            assertThat(indexed.get("omitted").isNull()).isTrue();
            JsonNode unchanged = listed(queryid);
            assertThat(unchanged == null || unchanged.get("planChangedAt").isNull()).as("no change yet").isTrue();

            Instant dropped = Instant.now();
            pg.execute(DB, "drop index plan_orders_status");
            JsonNode changed = Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
                    .until(() -> api().get(path).json().at("/plans/0"), plan -> !plan.get("changedAt").isNull());
            assertThat(changed.get("plan").toString()).contains("Seq Scan").doesNotContain("plan_orders_status");
            assertThat(changed.get("hash").asString()).isNotEqualTo(indexedHash);
            assertThat(changed.get("previousHash").asString()).isEqualTo(indexedHash);
            Instant previousReadAt = Instant.parse(changed.get("previousReadAt").asString());
            Instant changedAt = Instant.parse(changed.get("changedAt").asString());
            assertThat(previousReadAt).isAfterOrEqualTo(indexedAt).isBefore(changedAt);
            assertThat(changedAt).isAfter(dropped.minusSeconds(1));
            assertThat(Instant.parse(changed.get("readAt").asString())).isAfterOrEqualTo(changedAt);

            // The list of statements marks it too, with the same time.
            JsonNode marked = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                    .until(() -> listed(queryid), statement -> statement != null);
            assertThat(Instant.parse(marked.get("planChangedAt").asString())).isEqualTo(changedAt);
        } finally {
            running.set(false);
            workload.join();
            api().delete("/api/v1/sources/window-plans");
        }
    }

    @Test
    void aQueryIdThatIsNotOneIsNamedInProblemDetailsWithTheOtherBadParameters() {
        assertThat(api().post("/api/v1/sources", Map.of("name", "window-plans-bad", "connStr", pg.connStr("postgres"),
                "metrics", Map.of("db_size", 60))).status()).isEqualTo(201);
        try {
            ApiClient.Response bad = api().get("/api/v1/sources/window-plans-bad/queries/12x?span=forever");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.header("Content-Type")).startsWith("application/problem+json");
            assertThat(bad.errorFields()).containsExactlyInAnyOrder("queryid", "span");
            assertThat(api().get("/api/v1/sources/window-plans-bad/queries/-4242").json().get("plans").isEmpty()).isTrue();
            assertThat(api().get("/api/v1/sources/window-plans-bad/queries/other").status()).isEqualTo(200);
        } finally {
            api().delete("/api/v1/sources/window-plans-bad");
        }
    }

    /** The statement's entry in the source's list of statements (GET .../queries), or null before it is listed. */
    private JsonNode listed(String queryid) {
        return api().get("/api/v1/sources/window-plans/queries").json().get("statements").valueStream()
                .filter(s -> s.get("queryid").asString().equals(queryid)).findFirst().orElse(null);
    }

    /** The top statement: the SELECT by status, with a new constant each call, until stopped. */
    private static void runSelects(AtomicBoolean running) {
        try (Connection c = pg.connect(DB); PreparedStatement select = c.prepareStatement(SELECT)) {
            for (int i = 0; running.get(); i++) {
                select.setString(1, "status-" + (i % 5000));
                select.executeQuery().close();
                if (i % 50 == 0) {
                    Thread.sleep(20);
                }
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
