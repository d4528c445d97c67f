package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.nativemetric.PlanningLogin;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The planning role's session (the source's connection, its own login) on real servers before and after PostgreSQL 16: a plain read gets its generic plan, a write or a utility
 * statement is refused unsent, a plan that fails leaves no prepared statement and no open
 * transaction, and nothing the text could do outlives the read-only transaction.
 */
class GenericPlanSessionTest {

    private static final String DB = "generic_plans";

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {14, 16})
    void plansAPlainReadAndRefusesTheRest(int major) throws Exception {
        try (TestPostgres server = TestPostgres.start(major, Map.of())) {
            server.createDatabase(DB);
            server.execute(DB, "create table items (id int primary key, name text)");
            server.execute(DB, "insert into items select i, 'n' || i from generate_series(1, 1000) i");
            server.execute(DB, "analyze items");
            server.execute("postgres", "create role plan_reader login in role pg_monitor, pg_read_all_data");
            server.execute("postgres", "create role plan_only login in role pg_read_all_data");
            var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
                    Duration.ofSeconds(1), Duration.ofMinutes(1), true, false));
            try (PostgresSession session = PostgresSession.open(opener, ConnectionString.parse(
                    "postgresql://plan_reader@" + server.host() + ":" + server.port() + "/" + DB), Instant.now());
                    var planning = session.openPlanning(new PlanningLogin("plan_only", null))) {
                assertThat(planning.role()).isEqualTo("plan_only");
                String plan = planning.genericPlan("select name from items where id = $1", Duration.ofSeconds(5));
                assertThat(plan).contains("\"Index Scan\"").contains("items_pkey").contains("$1");

                assertThatThrownBy(() -> planning.genericPlan("update items set name = $1 where id = $2",
                        Duration.ofSeconds(5))).isInstanceOf(SQLException.class).hasMessageContaining("refused to plan");
                assertThatThrownBy(() -> planning.genericPlan("with gone as (delete from items returning id)"
                        + " select count(*) from gone", Duration.ofSeconds(5))).hasMessageContaining("refused to plan");
                assertThatThrownBy(() -> planning.genericPlan("select 1; drop table items", Duration.ofSeconds(5)))
                        .hasMessageContaining("refused to plan");

                // A failing plan (no such table) leaves nothing behind: no transaction, no prepared statement.
                assertThatThrownBy(() -> planning.genericPlan("select * from missing_table where id = $1",
                        Duration.ofSeconds(5))).isInstanceOf(SQLException.class).hasMessageContaining("missing_table");
                assertThat(session.read("select count(*) as n from pg_prepared_statements where name = 'pgharvest_generic_plan'").getFirst())
                        .containsEntry("n", 0L);
                assertThat(session.read("select current_setting('plan_cache_mode') as mode").getFirst())
                        .containsEntry("mode", "auto");
                assertThat(planning.genericPlan("select count(*) from items where name like $1", Duration.ofSeconds(5)))
                        .contains("\"Seq Scan\"");
            }
            assertThat(server.queryString(DB, "select count(*)::text from items")).isEqualTo("1000");
        }
    }
}
