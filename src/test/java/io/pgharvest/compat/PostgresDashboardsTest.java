package io.pgharvest.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.testsupport.InsightsWorkload;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard check of the shipped dashboards for PostgreSQL-sink data (grafana/postgres/): a
 * workload of a few statements, a pg_sleep and a row-lock wait runs on a real server while pgharvest,
 * logged in as a pg_monitor role, collects query_stats, query_texts and query_samples into a real
 * PostgreSQL sink; then every template variable's query and every panel's SQL, expanded as Grafana's
 * PostgreSQL data source expands it ({@link GrafanaSql}, the last hour, {@code $queryid} the statement
 * that waits for the lock, or the workload's read or sleep where only a SELECT gives rows), must return rows,
 * and the panels that answer "why" must name the lock wait and its blocker. The result per panel is
 * printed and written to target/postgres-dashboard-check.txt.
 */
class PostgresDashboardsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path DASHBOARDS = Path.of("grafana", "postgres");
    private static final String SOURCE = "insights-check";
    private static final String MONITOR = "dashboards_monitor";
    private static final String LOCKED_UPDATE = InsightsWorkload.LOCKED_UPDATE;

    private final TestPostgres pg = TestPostgres.shared();

    @TempDir
    Path dir;

    /** One panel's outcome: its rows as text (column -> value), or the error of its SQL. */
    private record Panel(String dashboard, String title, List<Map<String, String>> rows, String error) {
        boolean hasData() {
            return error == null && !rows.isEmpty();
        }

        boolean shows(String text) {
            return rows.stream().anyMatch(row -> row.values().stream().anyMatch(v -> v != null && v.contains(text)));
        }
    }

    @Test
    void everyPanelOfTheQueryInsightsDashboardShowsTheWorkloadsStatementsTextsAndWaits() throws Exception {
        String nonce = Long.toHexString(System.nanoTime());
        String database = "dash_src_" + nonce;
        String sink = "dash_sink_" + nonce;
        pg.createDatabase(database);
        pg.createDatabase(sink);
        // pgharvest collects as a pg_monitor role, as in production: its own statements are left out
        // of query_stats, the workload's are not.
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = '" + MONITOR
                + "') then create role " + MONITOR + " login in role pg_monitor; end if; end $$");
        pg.execute("postgres", TestPostgres.CREATE_TEST_PLANNER);
        Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                - name: %s
                  conn_str: %s
                  custom_metrics: {query_stats: 3, query_texts: 3, query_samples: 1, query_plans: 3}
                  is_enabled: true
                """.formatted(SOURCE, pg.connStr(database).replace("postgres@", MONITOR + "@")));
        try (InsightsWorkload workload = InsightsWorkload.start(pg, database, "dashboards_app");
                ConfigurableApplicationContext app = SpringApplication.run(PgharvestApplication.class,
                "--server.port=0", "--spring.main.banner-mode=off", "--pgharvest.data-dir=" + dir.resolve("data"),
                "--pgharvest.api.token=dashboard-check-token-0123", "--pgharvest.import.sources=" + sources,
                "--pgharvest.sinks[0].type=postgres", "--pgharvest.sinks[0].url=" + pg.connStr(sink),
                "--pgharvest.query-insights.planning-user=" + TestPostgres.TEST_PLANNER);
                Connection storage = pg.connect(sink)) {
            String lockedId = workload.lockedUpdateQueryId();
            List<String> statements = List.of(lockedId, workload.readQueryId(), workload.sleepQueryId());
            String holderPid = workload.holderPid();
            var last = new ArrayList<Panel>();
            try {
                Awaitility.await().atMost(Duration.ofMinutes(3)).pollDelay(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofSeconds(5)).until(() -> {
                            last.clear();
                            last.addAll(check(storage, statements));
                            return complete(last, holderPid);
                        });
            } catch (ConditionTimeoutException e) {
                // reported and asserted below, panel by panel
            }
            report(last);
            assertThat(last).as("panels and variables checked").hasSize(16);
            assertThat(last).filteredOn(p -> !p.hasData()).as("panels without data").isEmpty();
            assertThat(panel(last, "Top statements").shows(LOCKED_UPDATE)).as("the top table's normalized text").isTrue();
            assertThat(panel(last, "Where the top statements wait").shows("Timeout: PgSleep")).isTrue();
            assertThat(panel(last, "variable queryid").shows(lockedId)).as("the statement picker offers it").isTrue();
            assertThat(panel(last, "Statement text").shows(LOCKED_UPDATE)).isTrue();
            assertThat(panel(last, "Wait events while it ran").shows("Lock: transactionid")).isTrue();
            assertThat(panel(last, "Sampled sessions").shows(holderPid)).as("the blocker's pid").isTrue();
        }
    }

    /** Every panel has data and the "why" panels show the lock wait, its blocker and the sleep. */
    private static boolean complete(List<Panel> panels, String holderPid) {
        return !panels.isEmpty() && panels.stream().allMatch(Panel::hasData)
                && panel(panels, "Top statements").shows(LOCKED_UPDATE)
                && panel(panels, "Where the top statements wait").shows("Timeout: PgSleep")
                && panel(panels, "Wait events while it ran").shows("Lock: transactionid")
                && panel(panels, "Sampled sessions").shows(holderPid);
    }

    private static Panel panel(List<Panel> panels, String title) {
        return panels.stream().filter(p -> p.title().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no panel " + title + " in " + panels));
    }

    /**
     * Runs every variable query and panel SQL of every dashboard in grafana/postgres against the sink,
     * with each of the statements in turn as $queryid (the waiting update first; the read, a SELECT,
     * has plans): a panel shows the first statement that gives it rows.
     */
    private static List<Panel> check(Connection storage, List<String> statements) throws IOException {
        Instant to = Instant.now();
        var sql = new GrafanaSql(to.minus(Duration.ofHours(1)), to, Duration.ofSeconds(10));
        var panels = new ArrayList<Panel>();
        try (Stream<Path> files = Files.list(DASHBOARDS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                String name = file.getFileName().toString();
                JsonNode dashboard = JSON.readTree(file.toFile());
                Map<String, String> variables = new LinkedHashMap<>(Map.of("dbname", SOURCE));
                for (JsonNode variable : dashboard.path("templating").path("list")) {
                    String variableName = variable.path("name").asString();
                    if (variable.path("type").asString().equals("custom")) {
                        variables.put(variableName, variable.path("current").path("value").asString());
                    }
                }
                for (JsonNode variable : dashboard.path("templating").path("list")) {
                    if (variable.path("type").asString().equals("query")) {
                        panels.add(run(storage, name, "variable " + variable.path("name").asString(),
                                sql.expand(variable.path("query").asString(), variables)));
                    }
                }
                for (JsonNode panel : GrafanaPanels.panels(dashboard)) {
                    for (String query : GrafanaPanels.rawSql(panel)) {
                        Panel shown = null;
                        for (String statement : statements) {
                            variables.put("queryid", statement);
                            Panel candidate = run(storage, name, GrafanaPanels.title(panel), sql.expand(query, variables));
                            if (shown == null || !shown.hasData() && candidate.hasData()) {
                                shown = candidate;
                            }
                        }
                        panels.add(shown);
                    }
                }
            }
        }
        return panels;
    }

    private static Panel run(Connection storage, String dashboard, String title, String query) {
        var rows = new ArrayList<Map<String, String>>();
        try (Statement statement = storage.createStatement(); ResultSet rs = statement.executeQuery(query)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                var row = new LinkedHashMap<String, String>();
                for (int c = 1; c <= meta.getColumnCount(); c++) {
                    row.put(meta.getColumnLabel(c), rs.getString(c));
                }
                rows.add(row);
            }
            return new Panel(dashboard, title, rows, null);
        } catch (SQLException e) {
            return new Panel(dashboard, title, rows, e.getMessage().lines().findFirst().orElse("") + " in: " + query);
        }
    }

    private static void report(List<Panel> panels) throws IOException {
        var lines = new ArrayList<String>();
        for (Panel p : panels) {
            lines.add(String.format("%-22s %-45s %s", p.dashboard(), p.title(),
                    p.error() != null ? "ERROR " + p.error() : p.rows().isEmpty() ? "EMPTY" : p.rows().size() + " rows"));
        }
        lines.add(panels.stream().filter(Panel::hasData).count() + " of " + panels.size() + " with data");
        String text = String.join("\n", lines) + "\n";
        System.out.print(text);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "postgres-dashboard-check.txt"), text);
    }
}
