package io.pgharvest.compat;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * pgwatch drop-in check (docs/pgwatch-import.md): fills a PostgreSQL sink with pgharvest collecting
 * an embedded PostgreSQL under light load, runs every panel query of pgwatch's
 * {@code grafana/postgres/v13} dashboards against it (Grafana's macros and variables expanded) and
 * prints, per dashboard, how many panels show data, are empty or fail. Reads pgwatch's dashboards
 * from a checkout given on the command line; nothing of pgwatch is copied into this repository.
 *
 * <pre>
 * ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/compat-cp.txt -Dmdep.includeScope=test
 * java -cp "target/classes:target/test-classes:$(cat target/compat-cp.txt)" io.pgharvest.compat.DashboardCheck \
 *      /path/to/pgwatch [--minutes 3] [--preset full] [--pg-major 15] [--pgwatch-metrics] [--sink jdbc:postgresql://...]
 * </pre>
 * With {@code --sink} nothing is collected: the given sink (e.g. one pgwatch filled) is checked.
 * With {@code --pgwatch-metrics} pgwatch's own metrics.yaml is imported and its preset used.
 */
public final class DashboardCheck {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SOURCE = "compat-source";
    /** The multi-value variables of the dashboard being checked. */
    private static final java.util.Set<String> multiValued = new java.util.HashSet<>();

    private DashboardCheck() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: DashboardCheck <pgwatch checkout> [--minutes N] [--preset NAME]"
                    + " [--pgwatch-metrics] [--sink JDBC-URL] [--dbname SOURCE]");
            System.exit(2);
        }
        Path pgwatch = Path.of(args[0]);
        var options = options(args);
        String sinkUrl = options.get("sink");
        String dbname = options.getOrDefault("dbname", SOURCE);
        TestPostgres server = null;
        if (sinkUrl == null) {
            // The server writes csvlog so that server_log_event_counts (pgwatch's "Server log events") has a log.
            var settings = new java.util.HashMap<>(TestPostgres.SHARED_SETTINGS);
            settings.putAll(Map.of("logging_collector", "on", "log_destination", "csvlog", "lc_messages", "C"));
            server = options.containsKey("pg-major")
                    ? TestPostgres.start(Integer.parseInt(options.get("pg-major")), settings)
                    : TestPostgres.start(settings);
            sinkUrl = fill(server, pgwatch, options);
        }
        Instant to = Instant.now();
        var sql = new GrafanaSql(to.minus(Duration.ofHours(1)), to, Duration.ofMinutes(1));
        System.out.printf("%-40s %7s %7s %7s %7s%n", "dashboard", "panels", "data", "empty", "error");
        int[] total = new int[4];
        try (Connection sink = DriverManager.getConnection(sinkUrl); Statement s = sink.createStatement()) {
            s.execute("SET statement_timeout = '30s'");
            try (Stream<Path> files = Files.list(pgwatch.resolve("grafana/postgres/v13"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                    int[] counts = check(file, sink, sql, dbname, options.containsKey("verbose"));
                    System.out.printf("%-40s %7d %7d %7d %7d%n", file.getFileName(), counts[0], counts[1], counts[2],
                            counts[3]);
                    for (int i = 0; i < 4; i++) {
                        total[i] += counts[i];
                    }
                }
            }
        }
        System.out.printf("%-40s %7d %7d %7d %7d%n", "TOTAL", total[0], total[1], total[2], total[3]);
        if (server != null) {
            server.close();
        }
        System.exit(0);
    }

    private static Map<String, String> options(String[] args) {
        var options = new LinkedHashMap<String, String>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i].replaceFirst("^--", "");
            boolean flag = i + 1 >= args.length || args[i + 1].startsWith("--");
            options.put(name, flag ? "true" : args[++i]);
        }
        return options;
    }

    /** Collects an embedded server into a new sink database for the given minutes; returns its JDBC URL. */
    private static String fill(TestPostgres server, Path pgwatch, Map<String, String> options) throws Exception {
        String stamp = Long.toHexString(System.nanoTime());
        String source = "compat_src_" + stamp;
        String sink = "compat_sink_" + stamp;
        server.createDatabase(source);
        server.createDatabase(sink);
        server.execute("postgres", "alter database " + source + " set track_functions = 'all'");
        server.execute(source, """
                create extension if not exists pg_stat_statements;
                create table accounts (id int primary key, balance int8 not null default 0);
                insert into accounts select g, 0 from generate_series(1, 10000) g;
                create index accounts_balance on accounts (balance);
                create function touch(i int) returns void language sql as 'update accounts set balance = balance + 1 where id = i';
                """);
        Path dir = Files.createTempDirectory("pgharvest-compat");
        Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                - name: %s
                  conn_str: %s
                  preset_metrics: %s
                  is_enabled: true
                """.formatted(SOURCE, server.connStr(source), options.getOrDefault("preset", "full")));
        var arguments = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--pgharvest.data-dir=" + dir.resolve("data"), "--pgharvest.api.token=compat-check-token-0123",
                "--pgharvest.import.sources=" + sources, "--pgharvest.sinks[0].type=postgres",
                "--pgharvest.sinks[0].url=" + server.connStr(sink)));
        if (options.containsKey("pgwatch-metrics")) {
            arguments.add("--pgharvest.import.metrics=" + pgwatch.resolve("internal/metrics/metrics.yaml"));
        }
        Duration run = Duration.ofMinutes(Long.parseLong(options.getOrDefault("minutes", "3")));
        var load = Thread.ofVirtual().name("compat-load").start(() -> load(server, source));
        try (ConfigurableApplicationContext app = SpringApplication.run(PgharvestApplication.class,
                arguments.toArray(String[]::new))) {
            System.out.println("collecting " + SOURCE + " for " + run + " ...");
            Thread.sleep(run); // a fixed collection window: what is measured is what the window gathered
        } finally {
            load.interrupt();
            load.join();
        }
        return server.jdbcUrl(sink);
    }

    /** A light pgbench-like load: small transactions, a function call, a few reads. */
    private static void load(TestPostgres server, String database) {
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            long i = 0;
            while (!Thread.currentThread().isInterrupted()) {
                int id = (int) (i++ % 10_000) + 1;
                s.execute("select touch(" + id + ")");
                s.execute("select sum(balance) from accounts where id between " + id + " and " + (id + 50));
                Thread.sleep(20);
            }
        } catch (SQLException e) {
            System.err.println("load stopped: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Panels, panels with data, empty panels, failing panels of one dashboard file. */
    private static int[] check(Path file, Connection sink, GrafanaSql sql, String dbname, boolean verbose)
            throws IOException, SQLException {
        JsonNode dashboard = JSON.readTree(file.toFile());
        Map<String, String> variables = variables(dashboard, sink, sql, dbname);
        int[] counts = new int[4];
        for (JsonNode panel : panels(dashboard)) {
            List<String> queries = new ArrayList<>();
            rawSql(panel.has("targets") ? panel.path("targets") : panel.path("spec").path("data"), queries);
            if (queries.isEmpty()) {
                continue;
            }
            counts[0]++;
            boolean data = false;
            String error = null;
            for (String query : queries) {
                try {
                    data |= hasRows(sink, sql.expand(query, variables));
                } catch (SQLException e) {
                    error = e.getMessage();
                }
            }
            counts[data ? 1 : error == null ? 2 : 3]++;
            if (verbose && !data) {
                System.out.println("  " + file.getFileName() + " / "
                        + panel.path("title").asString(panel.path("spec").path("title").asString()) + ": "
                        + (error == null ? "empty" : error.lines().findFirst().orElse("")));
            }
        }
        return counts;
    }

    private static boolean hasRows(Connection sink, String query) throws SQLException {
        sink.setAutoCommit(false);
        try (Statement s = sink.createStatement(); ResultSet rs = s.executeQuery(query)) {
            return rs.next();
        } finally {
            sink.rollback();
        }
    }

    /** Panels of the classic layout (panels, rows) and of Grafana's v2 schema (spec.elements). */
    private static List<JsonNode> panels(JsonNode dashboard) {
        var out = new ArrayList<JsonNode>();
        collect(dashboard.path("panels"), out);
        dashboard.path("rows").forEach(row -> collect(row.path("panels"), out));
        dashboard.path("spec").path("elements").forEach(out::add);
        return out;
    }

    private static void rawSql(JsonNode node, List<String> out) {
        if (node.isObject() && node.hasNonNull("rawSql") && !node.get("rawSql").asString().isBlank()) {
            out.add(node.get("rawSql").asString());
            return;
        }
        node.forEach(child -> rawSql(child, out));
    }

    private static void collect(JsonNode panels, List<JsonNode> out) {
        panels.forEach(panel -> {
            out.add(panel);
            collect(panel.path("panels"), out);
        });
    }

    /** Template variables: dbname is the collected source; query variables take their first value. */
    private static Map<String, String> variables(JsonNode dashboard, Connection sink, GrafanaSql sql, String dbname)
            throws SQLException {
        var variables = new LinkedHashMap<String, String>();
        multiValued.clear();
        var declared = new ArrayList<JsonNode>();
        dashboard.path("templating").path("list").forEach(declared::add);
        dashboard.path("spec").path("variables").forEach(v -> declared.add(v.path("spec")));
        for (JsonNode variable : declared) {
            String name = variable.path("name").asString();
            String value = current(variable);
            JsonNode query = variable.path("query");
            if (variable.path("type").asString().equals("query") || query.path("kind").asString().equals("DataQuery")) {
                JsonNode spec = query.path("spec");
                String text = query.isObject()
                        ? firstText(spec.path("rawSql"), spec.path("__legacyStringValue"), query.path("rawSql"),
                                query.path("query"))
                        : query.asString();
                String first = firstValue(sink, sql.expand(text, withDbname(variables, dbname)));
                if (first != null) {
                    value = first;
                }
            }
            if (variable.path("multi").asBoolean(false) || variable.path("includeAll").asBoolean(false)) {
                multiValued.add(name);
            }
            variables.put(name, format(name, value == null ? "" : value));
        }
        return withDbname(variables, dbname);
    }

    /** Grafana's SQL data sources write a multi-value variable as a list of quoted strings. */
    private static String format(String name, String value) {
        return multiValued.contains(name) ? "'" + value.replace("'", "''") + "'" : value;
    }

    private static String firstText(JsonNode... candidates) {
        for (JsonNode candidate : candidates) {
            if (candidate.isString() && !candidate.asString().isBlank()) {
                return candidate.asString();
            }
        }
        return "";
    }

    private static Map<String, String> withDbname(Map<String, String> variables, String dbname) {
        var out = new LinkedHashMap<>(variables);
        for (String name : List.of("dbname", "databases", "monitoredsource", "recovery_dbname")) {
            out.put(name, format(name, dbname));
        }
        return out;
    }

    private static String current(JsonNode variable) {
        JsonNode value = variable.path("current").path("value");
        String text = value.isArray() ? (value.isEmpty() ? null : value.get(0).asString()) : value.asString(null);
        if (text != null && text.startsWith("$__auto")) {
            return "1m";
        }
        if (text == null || text.startsWith("$__")) {
            JsonNode options = variable.path("options");
            return options.isEmpty() ? (variable.path("type").asString().equals("interval") ? "1m" : null)
                    : options.get(options.size() > 1 && text != null ? 1 : 0).path("value").asString(null);
        }
        return text;
    }

    private static String firstValue(Connection sink, String query) {
        if (query.isBlank()) {
            return null;
        }
        try {
            sink.setAutoCommit(false);
            try (Statement s = sink.createStatement(); ResultSet rs = s.executeQuery(query)) {
                return rs.next() ? rs.getString(1) : null;
            } finally {
                sink.rollback();
            }
        } catch (SQLException e) {
            return null;
        }
    }
}
