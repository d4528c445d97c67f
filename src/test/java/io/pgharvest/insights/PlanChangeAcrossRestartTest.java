package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.api.ApiClient;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * A plan change is marked within seconds of an index drop while plans stand a day (the default
 * plan-every): the top read's time per call jumps and query_plans plans it again; and it is marked
 * across a restart of pgharvest too: a new application on the same data directory, whose recent
 * window holds no plan, marks the change back to the indexed plan when the index returns, in the
 * statement's plans and in the list of statements. Real PostgreSQL, real applications, the REST API.
 */
class PlanChangeAcrossRestartTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "plan_restart_db";
    private static final String TOKEN = "plan-restart-token-0123456789";
    private static final String SELECT = "select name from restart_orders where status = ?";

    @TempDir
    Path dir;

    @Test
    void aDroppedIndexIsMarkedAsAPlanChangeWithinSecondsAndAgainAfterARestart() throws Exception {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
        pg.execute(DB, "create table restart_orders (id int primary key, status text, name text)");
        pg.execute(DB, "insert into restart_orders select i, 'status-' || i, 'n' || i from generate_series(1, 20000) i");
        pg.execute(DB, "create index restart_orders_status on restart_orders (status)");
        pg.execute(DB, "analyze restart_orders");
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = 'plan_restart_monitor')"
                + " then create role plan_restart_monitor login in role pg_monitor; end if; end $$");
        pg.execute("postgres", TestPostgres.CREATE_TEST_PLANNER);
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> runSelects(running));
        try {
            String indexedHash;
            String seqHash;
            String queryid;
            try (ConfigurableApplicationContext app = start()) {
                ApiClient api = api(app);
                assertThat(api.post("/api/v1/sources", Map.of("name", "plan-restart",
                        "connStr", pg.connStr(DB).replace("postgres@", "plan_restart_monitor@"),
                        "metrics", Map.of("query_stats", 1, "query_texts", 1, "query_plans", 1))).status())
                        .isEqualTo(201);
                queryid = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                        .until(() -> pg.queryString(DB, "select coalesce((select queryid::text from pg_stat_statements"
                                + " where query = 'select name from restart_orders where status = $1' limit 1), '')"),
                                id -> !id.isEmpty());
                JsonNode indexed = awaitPlan(api, queryid, plan -> plan.get("plan").toString()
                        .contains("restart_orders_status"));
                indexedHash = indexed.get("hash").asString();

                pg.execute(DB, "drop index restart_orders_status");
                JsonNode changed = awaitPlan(api, queryid, plan -> !plan.get("changedAt").isNull());
                seqHash = changed.get("hash").asString();
                assertThat(changed.get("plan").toString()).contains("Seq Scan");
                assertThat(changed.get("previousHash").asString()).isEqualTo(indexedHash);
            }

            pg.execute(DB, "create index restart_orders_status on restart_orders (status)");
            pg.execute(DB, "analyze restart_orders");
            try (ConfigurableApplicationContext app = start()) {
                ApiClient api = api(app);
                JsonNode back = awaitPlan(api, queryid, plan -> plan.get("hash").asString().equals(indexedHash));
                assertThat(back.get("previousHash").asString()).isEqualTo(seqHash);
                assertThat(back.get("changedAt").isNull()).isFalse();
                JsonNode listed = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                        .until(() -> api.get("/api/v1/sources/plan-restart/queries").json().get("statements")
                                .valueStream().filter(s -> s.get("queryid").asString().equals(queryid)).findFirst()
                                .orElse(null), s -> s != null && !s.get("planChangedAt").isNull());
                assertThat(listed.get("planChangedAt").asString()).isEqualTo(back.get("changedAt").asString());
                api.delete("/api/v1/sources/plan-restart");
            }
        } finally {
            running.set(false);
            workload.join();
        }
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(PgharvestApplication.class).run("--server.port=0",
                "--spring.main.banner-mode=off", "--pgharvest.data-dir=" + dir.resolve("data"),
                "--pgharvest.api.token=" + TOKEN, "--pgharvest.connect-timeout=2s",
                "--pgharvest.query-insights.planning-user=" + TestPostgres.TEST_PLANNER,
                "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + dir.resolve("rows.jsonl"));
    }

    private static ApiClient api(ConfigurableApplicationContext app) {
        return new ApiClient(Integer.parseInt(app.getEnvironment().getProperty("local.server.port")), TOKEN);
    }

    private static JsonNode awaitPlan(ApiClient api, String queryid, java.util.function.Predicate<JsonNode> wanted) {
        return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    JsonNode plans = api.get("/api/v1/sources/plan-restart/queries/" + queryid).json().get("plans");
                    return plans == null || plans.isEmpty() ? null : plans.get(0);
                }, plan -> plan != null && wanted.test(plan));
    }

    /** The top statement: the SELECT by status, until stopped. */
    private static void runSelects(AtomicBoolean running) {
        try (Connection c = pg.connect(DB); PreparedStatement select = c.prepareStatement(SELECT)) {
            for (int i = 0; running.get(); i++) {
                select.setString(1, "status-" + (i % 20000));
                select.executeQuery().close();
                if (i % 20 == 0) {
                    Thread.sleep(20);
                }
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
