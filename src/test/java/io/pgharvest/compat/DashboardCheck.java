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
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

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
 *      [--compare /path/to/pgwatch-binary]
 * </pre>
 * With {@code --sink} nothing is collected: the given sink (e.g. one pgwatch filled) is checked.
 * With {@code --pgwatch-metrics} pgwatch's own metrics.yaml is imported and its preset used.
 * With {@code --compare} pgwatch itself (a binary built from that checkout) then collects the same
 * server, under the same load, for the same time, with its own metrics.yaml and the same preset, into a
 * second sink; both are checked and every panel that shows data for pgwatch but not for pgharvest is
 * listed.
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
                    + " [--pgwatch-metrics] [--sink JDBC-URL] [--dbname SOURCE] [--compare PGWATCH-BINARY]");
            System.exit(2);
        }
        Path pgwatch = Path.of(args[0]);
        var options = options(args);
        if (options.containsKey("sink")) {
            report("given sink", check(pgwatch, options.get("sink"), options.getOrDefault("dbname", SOURCE), options));
            System.exit(0);
        }
        // The server writes csvlog so that server_log_event_counts (pgwatch's "Server log events") has a log.
        var settings = new java.util.HashMap<>(TestPostgres.SHARED_SETTINGS);
        settings.putAll(Map.of("logging_collector", "on", "log_destination", "csvlog", "lc_messages", "C"));
        try (TestPostgres server = options.containsKey("pg-major")
                ? TestPostgres.start(Integer.parseInt(options.get("pg-major")), settings)
                : TestPostgres.start(settings)) {
            String source = prepareSource(server);
            Map<String, Outcome> pgharvest = check(pgwatch, collect(server, source, pgwatch, options, false),
                    SOURCE, options);
            report("pgharvest", pgharvest);
            if (options.containsKey("compare")) {
                Map<String, Outcome> peer = check(pgwatch, collect(server, source, pgwatch, options, true),
                        SOURCE, options);
                report("pgwatch", peer);
                compare(peer, pgharvest);
            }
        }
        System.exit(0);
    }

    /** What one panel showed: data, empty, or the first line of its error. */
    private record Outcome(String dashboard, String title, int kind, String error) {
        static final int DATA = 1;
        static final int EMPTY = 2;
        static final int ERROR = 3;

        String describe() {
            return kind == DATA ? "data" : kind == EMPTY ? "empty" : "error: " + error;
        }
    }

    /** Every panel's outcome, keyed "dashboard / title #n" (titles repeat within a dashboard). */
    private static Map<String, Outcome> check(Path pgwatch, String sinkUrl, String dbname, Map<String, String> options)
            throws Exception {
        Instant to = Instant.now();
        var sql = new GrafanaSql(to.minus(Duration.ofHours(1)), to, Duration.ofMinutes(1));
        var outcomes = new LinkedHashMap<String, Outcome>();
        try (Connection sink = DriverManager.getConnection(sinkUrl); Statement s = sink.createStatement()) {
            s.execute("SET statement_timeout = '30s'");
            try (Stream<Path> files = Files.list(pgwatch.resolve("grafana/postgres/v13"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                    for (Outcome outcome : check(file, sink, sql, dbname)) {
                        String key = outcome.dashboard() + " / " + outcome.title();
                        int n = 1;
                        while (outcomes.containsKey(key + " #" + n)) {
                            n++;
                        }
                        outcomes.put(key + " #" + n, outcome);
                    }
                }
            }
        }
        if (options.containsKey("verbose")) {
            outcomes.forEach((key, o) -> {
                if (o.kind() != Outcome.DATA) {
                    System.out.println("  " + key + ": " + o.describe());
                }
            });
        }
        return outcomes;
    }

    /** The per-dashboard table: panels with SQL, with data, empty, failing. */
    private static void report(String label, Map<String, Outcome> outcomes) {
        System.out.println();
        System.out.println("== " + label);
        System.out.printf("%-40s %7s %7s %7s %7s%n", "dashboard", "panels", "data", "empty", "error");
        var byDashboard = new TreeMap<String, int[]>();
        int[] total = new int[4];
        for (Outcome o : outcomes.values()) {
            int[] counts = byDashboard.computeIfAbsent(o.dashboard(), d -> new int[4]);
            counts[0]++;
            counts[o.kind()]++;
            total[0]++;
            total[o.kind()]++;
        }
        byDashboard.forEach((dashboard, c) ->
                System.out.printf("%-40s %7d %7d %7d %7d%n", dashboard, c[0], c[1], c[2], c[3]));
        System.out.printf("%-40s %7d %7d %7d %7d%n", "TOTAL", total[0], total[1], total[2], total[3]);
    }

    /** Panels where pgwatch shows data and pgharvest does not, and the count the other way round. */
    private static void compare(Map<String, Outcome> peer, Map<String, Outcome> pgharvest) {
        var worse = new ArrayList<String>();
        int better = 0;
        for (var entry : peer.entrySet()) {
            Outcome ours = pgharvest.get(entry.getKey());
            boolean peerData = entry.getValue().kind() == Outcome.DATA;
            boolean ourData = ours != null && ours.kind() == Outcome.DATA;
            if (peerData && !ourData) {
                worse.add(entry.getKey() + ": " + (ours == null ? "missing" : ours.describe()));
            } else if (ourData && !peerData) {
                better++;
            }
        }
        System.out.println();
        System.out.println("== panels with data for pgwatch but not for pgharvest: " + worse.size());
        worse.forEach(line -> System.out.println("  " + line));
        System.out.println("== panels with data for pgharvest but not for pgwatch: " + better);
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

    /** Creates the collected database with a little schema for the load; returns its name. */
    private static String prepareSource(TestPostgres server) {
        String source = "compat_src_" + Long.toHexString(System.nanoTime());
        server.createDatabase(source);
        server.execute("postgres", "alter database " + source + " set track_functions = 'all'");
        server.execute(source, """
                create extension if not exists pg_stat_statements;
                create table accounts (id int primary key, balance int8 not null default 0);
                insert into accounts select g, 0 from generate_series(1, 10000) g;
                create index accounts_balance on accounts (balance);
                create function touch(i int) returns void language sql as 'update accounts set balance = balance + 1 where id = i';
                """);
        return source;
    }

    /**
     * Collects the source under load into a new sink database for the given minutes, with pgharvest or
     * (peer) with the pgwatch binary given by --compare; returns the sink's JDBC URL.
     */
    private static String collect(TestPostgres server, String source, Path pgwatch, Map<String, String> options,
            boolean peer) throws Exception {
        String sink = (peer ? "compat_pgwatch_" : "compat_sink_") + Long.toHexString(System.nanoTime());
        server.createDatabase(sink);
        Path dir = Files.createTempDirectory("pgharvest-compat");
        String preset = options.getOrDefault("preset", "full");
        Duration run = Duration.ofMinutes(Long.parseLong(options.getOrDefault("minutes", "3")));
        var load = Thread.ofVirtual().name("compat-load").start(() -> load(server, source));
        try {
            if (peer) {
                runPgwatch(Path.of(options.get("compare")), pgwatch, dir, server.connStr(source),
                        server.connStr(sink), preset, run);
            } else {
                runPgharvest(pgwatch, dir, server.connStr(source), server.connStr(sink), preset, run, options);
            }
        } finally {
            load.interrupt();
            load.join();
        }
        return server.jdbcUrl(sink);
    }

    private static void runPgharvest(Path pgwatch, Path dir, String source, String sink, String preset, Duration run,
            Map<String, String> options) throws Exception {
        Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                - name: %s
                  conn_str: %s
                  preset_metrics: %s
                  is_enabled: true
                """.formatted(SOURCE, source, preset));
        var arguments = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--pgharvest.data-dir=" + dir.resolve("data"), "--pgharvest.api.token=compat-check-token-0123",
                "--pgharvest.import.sources=" + sources, "--pgharvest.sinks[0].type=postgres",
                "--pgharvest.sinks[0].url=" + sink));
        if (options.containsKey("pgwatch-metrics")) {
            arguments.add("--pgharvest.import.metrics=" + pgwatch.resolve("internal/metrics/metrics.yaml"));
        }
        try (ConfigurableApplicationContext app = SpringApplication.run(PgharvestApplication.class,
                arguments.toArray(String[]::new))) {
            System.out.println("pgharvest collecting " + SOURCE + " for " + run + " ...");
            Thread.sleep(run); // a fixed collection window: what is measured is what the window gathered
        }
    }

    /**
     * pgwatch's preset minus the metrics that break its own PostgreSQL sink (a NaN from psutil_mem or
     * sproc_stats makes its COPY fail and the sink loop on the error), at the preset's intervals.
     */
    private static void runPgwatch(Path binary, Path pgwatch, Path dir, String source, String sink, String preset,
            Duration run) throws Exception {
        Path metrics = pgwatch.resolve("internal/metrics/metrics.yaml");
        JsonNode selected = new YAMLMapper().readTree(metrics.toFile())
                .path("presets").path(preset).path("metrics");
        if (selected.isEmpty()) {
            throw new IllegalArgumentException("pgwatch's " + metrics + " has no preset " + preset);
        }
        var custom = new StringBuilder();
        for (String metric : selected.propertyNames()) {
            if (!metric.equals("psutil_mem") && !metric.equals("sproc_stats")) {
                custom.append("    ").append(metric).append(": ").append(selected.get(metric).asInt()).append('\n');
            }
        }
        Path sources = Files.writeString(dir.resolve("pgwatch-sources.yaml"), """
                - name: %s
                  conn_str: %s
                  kind: postgres
                  is_enabled: true
                  custom_metrics:
                %s""".formatted(SOURCE, source, custom));
        Path log = dir.resolve("pgwatch.log");
        Process process = new ProcessBuilder(binary.toString(), "--sources=" + sources, "--metrics=" + metrics,
                "--sink=" + sink, "--web-disable=all").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        System.out.println("pgwatch collecting " + SOURCE + " for " + run + " (log " + log + ") ...");
        try {
            if (process.waitFor(run.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("pgwatch exited with " + process.exitValue() + "; see " + log);
            }
        } finally {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
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

    /** The outcome of every panel of one dashboard file that has SQL. */
    private static List<Outcome> check(Path file, Connection sink, GrafanaSql sql, String dbname)
            throws IOException, SQLException {
        JsonNode dashboard = JSON.readTree(file.toFile());
        Map<String, String> variables = variables(dashboard, sink, sql, dbname);
        var outcomes = new ArrayList<Outcome>();
        for (JsonNode panel : GrafanaPanels.panels(dashboard)) {
            List<String> queries = GrafanaPanels.rawSql(panel);
            if (queries.isEmpty()) {
                continue;
            }
            boolean data = false;
            String error = null;
            for (String query : queries) {
                try {
                    data |= hasRows(sink, sql.expand(query, variables));
                } catch (SQLException e) {
                    error = e.getMessage().lines().findFirst().orElse("");
                }
            }
            outcomes.add(new Outcome(file.getFileName().toString(), GrafanaPanels.title(panel),
                    data ? Outcome.DATA : error == null ? Outcome.EMPTY : Outcome.ERROR, error));
        }
        return outcomes;
    }

    private static boolean hasRows(Connection sink, String query) throws SQLException {
        sink.setAutoCommit(false);
        try (Statement s = sink.createStatement(); ResultSet rs = s.executeQuery(query)) {
            return rs.next();
        } finally {
            sink.rollback();
        }
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
