package io.pgharvest.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.api.ApiClient;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Source;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.postgres.PostgresConfigStore;
import io.pgharvest.store.postgres.PostgresStores;
import io.pgharvest.testsupport.PgharvestProcess;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Three pgharvest processes on one configuration database, 60 sources, each collecting an audit
 * metric every second that records the monitored server's time. Ticks are attributed to the grid
 * point they were due at (the grid is the same on every instance: 1 s, phase from the source's
 * name), so from all instances' output together: no grid point collected twice, none missing
 * across a graceful stop or an outage of the configuration database, and the sources of an
 * instance killed with SIGKILL collected again by the others within 30 s. Default lease settings
 * (15 s lease, 3 s renew), so the figures printed are those an operator gets.
 */
class FleetProcessesTest {

    private static final int SOURCES = 60;
    private static final String DATABASE = "fleet_processes";
    private static final Duration OUTAGE = Duration.ofSeconds(17);
    private final List<Member> processes = new ArrayList<>();
    private final JsonMapper json = JsonMapper.builder().build();

    @TempDir
    Path root;

    @AfterEach
    void stopAll() throws Exception {
        for (Member process : processes) {
            process.close();
        }
        TestPostgres.shared().execute("postgres", "ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS true");
    }

    /**
     * One collected tick: the server time of its query, the tick's start on the collecting
     * instance (the measurement's time) and that instance. The start is what says which grid
     * point the tick served: a reaper serves the latest grid point at or before it wakes.
     */
    private record Tick(long serverMillis, long startMillis, String instance) {
    }

    /** One instance of the fleet: its id ({@code pgharvest.fleet.instance-id}) and its process. */
    private record Member(String id, PgharvestProcess process) implements AutoCloseable {

        static Member start(String id, Path root, String storeUrl) {
            return new Member(id, PgharvestProcess.launch(root.resolve(id),
                    "--pgharvest.store.url=" + storeUrl, "--pgharvest.fleet.instance-id=" + id,
                    "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].batch-delay=200ms"));
        }

        /** An admin API call; the answer whatever its status. */
        ApiClient.Response call(String method, String path, String jsonBody) {
            return process.api().send(method, path, jsonBody);
        }

        Path measurements() {
            return process.dataDir().resolve("measurements.jsonl");
        }

        void kill() throws InterruptedException {
            process.kill();
        }

        void stop() throws InterruptedException {
            process.stop();
        }

        @Override
        public void close() throws InterruptedException {
            process.close();
        }
    }

    @Test
    void threeInstancesShareTheFleetSurviveAStoreOutageTakeOverAfterAKillAndHandOverOnAGracefulStop()
            throws Exception {
        String url = PostgresStores.newDatabase(DATABASE);
        seed(url);
        Member a = start("a", url);
        Member b = start("b", url);
        Member c = start("c", url);

        // Balanced: 60 sources of equal cost on three instances.
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(owners()).containsEntry("a", 20).containsEntry("b", 20).containsEntry("c", 20));
        long balancedAt = System.currentTimeMillis();
        awaitEverySourceCollectedAfter(balancedAt + 2_000, a, b, c);

        // Any instance answers each source's status for the whole fleet.
        String ofCSample = sourcesOf("c").first();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            JsonNode status = json.readTree(a.call("GET", "/api/v1/sources/" + ofCSample + "/status", null).body());
            assertThat(status.path("owner").path("instance").asString()).isEqualTo("c");
            assertThat(status.path("owner").path("thisInstance").asBoolean()).isFalse();
            assertThat(status.path("owner").path("lastTickAt").isNull()).isFalse();
            assertThat(status.path("state").asString()).isEqualTo("connected");
        });

        long writeVisibleMillis = apiWriteOnAVisibleOnB(a, b);

        // The configuration database's load in steady state, from pg_stat_statements.
        Map<String, double[]> before = statements();
        long windowStart = System.nanoTime();
        Thread.sleep(10_000); // a measurement window, not a wait for a condition
        double windowSeconds = (System.nanoTime() - windowStart) / 1e9;
        Map<String, double[]> after = statements();
        double[] load = perSecondPerSource(before, after, windowSeconds);
        List<String> topStatements = topStatements(before, after, windowSeconds);

        // An outage of the configuration database longer than a lease: everybody keeps collecting
        // what it holds, and nobody takes anything from anybody when it ends.
        Map<String, Set<String>> ownersBefore = Map.of("a", sourcesOf("a"), "b", sourcesOf("b"), "c", sourcesOf("c"));
        long outageStart = System.currentTimeMillis();
        TestPostgres.shared().execute("postgres", "ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS false");
        TestPostgres.shared().execute("postgres",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + DATABASE + "'");
        var refused = a.call("POST", "/api/v1/sources", """
                {"name": "written-in-outage", "connStr": "postgresql://monitor@db.invalid/app", "enabled": false}""");
        assertThat(refused.status()).isEqualTo(503);
        assertThat(json.readTree(refused.body()).path("type").asString()).endsWith("/store-unavailable");
        awaitEverySourceCollectedAfter(outageStart + OUTAGE.toMillis(), a, b, c);
        long outageEnd = System.currentTimeMillis();
        TestPostgres.shared().execute("postgres", "ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS true");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(heartbeatsSince(outageEnd)).isEqualTo(3));
        assertThat(Map.of("a", sourcesOf("a"), "b", sourcesOf("b"), "c", sourcesOf("c"))).isEqualTo(ownersBefore);
        assertThat(b.call("GET", "/api/v1/sources/written-in-outage", null).status()).isEqualTo(404);

        // kill -9: c's sources are collected again by a and b; a blocking status query on a for
        // one of them answers when the owner changes.
        Set<String> ofC = sourcesOf("c");
        String watched = ofC.iterator().next();
        var statusResponse = a.call("GET", "/api/v1/sources/" + watched + "/status", null);
        String index = statusResponse.headers().firstValue("X-Pgharvest-Index").orElseThrow();
        CompletableFuture<JsonNode> blockedStatus = CompletableFuture.supplyAsync(() -> awaitOwnerOtherThan(a,
                watched, index, "c"));
        long killedAt = System.currentTimeMillis();
        c.kill();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(collectedAfter(killedAt, a, b).keySet()).containsAll(ofC));
        long takeoverMillis = collectedAfter(killedAt, a, b).entrySet().stream()
                .filter(e -> ofC.contains(e.getKey())).mapToLong(e -> e.getValue() - killedAt).max().orElseThrow();
        assertThat(blockedStatus.get().path("owner").path("instance").asString()).isIn("a", "b");
        awaitEverySourceCollectedAfter(System.currentTimeMillis() + 2_000, a, b);

        // Graceful stop: b hands everything to a, tick by tick.
        Set<String> ofB = sourcesOf("b");
        long stopping = System.currentTimeMillis();
        b.stop();
        long stopped = System.currentTimeMillis();
        awaitEverySourceCollectedAfter(stopped + 2_000, a);
        a.stop();

        Audit audit = audit(ticksBySource(a, b, c), balancedAt, outageStart, outageEnd, ofC, killedAt,
                killedAt + takeoverMillis, ofB, stopping, stopped);
        System.out.printf("fleet audit: %d sources, %d ticks; takeover after kill -9 %d ms; duplicates %d"
                        + " (queries that ran over 1 s after their tick began: %d);"
                        + " missing: at graceful stop %d, during store outage %d, in steady state %d, while balancing %d,"
                        + " in the takeover after kill %d;"
                        + " API write on a visible to a blocking query on b after %d ms; configuration database"
                        + " per source: %.3f statements/s, %.3f rows/s (%d statements/s in all); load average %s%n",
                SOURCES, audit.ticks, takeoverMillis, audit.duplicates, audit.lateTicks, audit.missingAtStop, audit.missingInOutage,
                audit.missingSteady, audit.missingBeforeBalanced, audit.missingAfterKill, writeVisibleMillis, load[0], load[1],
                Math.round(load[0] * SOURCES), Files.readString(Path.of("/proc/loadavg")).trim());
        topStatements.forEach(line -> System.out.println("  configuration database: " + line));
        audit.details.forEach(line -> System.out.println("  " + line));
        assertThat(audit.sources).isEqualTo(SOURCES);
        assertThat(audit.duplicates).isZero();
        assertThat(audit.missingAtStop).isZero();
        assertThat(audit.missingInOutage).isZero();
        assertThat(takeoverMillis).isLessThan(30_000);
        assertThat(writeVisibleMillis).isLessThan(1_000);
    }

    private Member start(String id, String url) {
        Member process = Member.start(id, root, url);
        processes.add(process);
        return process;
    }

    private static void seed(String url) {
        String target = TestPostgres.shared().connStr("postgres");
        var audit = new MetricDefinition("tick_audit", "server time of each tick",
                Map.of(14, "select (extract(epoch from now()) * 1000)::bigint as server_ms"), List.of(), false, null,
                null, null, null);
        var sources = IntStream.range(0, SOURCES).mapToObj(i -> new Source("s" + i, target, null, null, true, null,
                Map.of("tick_audit", 1), null, Map.of(), Map.of(), false, null, null)).toList();
        try (var store = PostgresConfigStore.open(url, Duration.ofMillis(500))) {
            store.putAll(new ConfigChanges(sources, List.of(audit), List.of()), false);
        }
        TestPostgres.shared().execute(DATABASE, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    }

    /**
     * Parks a blocking list query on b, writes a source through a, and returns how long after a's
     * write answered b's query answered with it.
     */
    private long apiWriteOnAVisibleOnB(Member a, Member b) throws Exception {
        String index = b.call("GET", "/api/v1/sources", null).headers().firstValue("X-Pgharvest-Index").orElseThrow();
        CompletableFuture<Long> seenOnB = CompletableFuture.supplyAsync(() -> {
            var answer = b.call("GET", "/api/v1/sources?index=" + index + "&wait=30s", null);
            assertThat(answer.body()).contains("written-on-a");
            return System.nanoTime();
        });
        // The blocking query must be parked before the write.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> assertThat(
                json.readTree(b.call("GET", "/actuator/metrics/pgharvest.api.blocking.waiters?tag=table:sources",
                        null).body()).path("measurements").path(0).path("value").asDouble()).isGreaterThanOrEqualTo(1));
        var written = a.call("POST", "/api/v1/sources", """
                {"name": "written-on-a", "connStr": "postgresql://monitor@db.invalid/app", "enabled": false}""");
        long writtenAt = System.nanoTime();
        assertThat(written.status()).isEqualTo(201);
        return Math.max(0, (seenOnB.get() - writtenAt) / 1_000_000);
    }

    private JsonNode awaitOwnerOtherThan(Member on, String source, String index, String gone) {
        String seen = index;
        for (int i = 0; i < 20; i++) {
            var answer = on.call("GET", "/api/v1/sources/" + source + "/status?index=" + seen + "&wait=60s", null);
            JsonNode status = json.readTree(answer.body());
            String owner = status.path("owner").path("instance").asString();
            if (!owner.isEmpty() && !owner.equals(gone)) {
                return status;
            }
            seen = answer.headers().firstValue("X-Pgharvest-Index").orElseThrow();
        }
        throw new IllegalStateException("owner of " + source + " never changed");
    }

    /** Per statement text of this database: calls and rows so far. */
    private static Map<String, double[]> statements() throws SQLException {
        var totals = new HashMap<String, double[]>();
        query(DATABASE, "SELECT query, sum(calls), sum(rows) FROM pg_stat_statements s JOIN pg_database d"
                + " ON d.oid = s.dbid WHERE d.datname = '" + DATABASE + "' GROUP BY query",
                rs -> totals.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getDouble(3)}));
        return totals;
    }

    private static double[] perSecondPerSource(Map<String, double[]> before, Map<String, double[]> after,
            double seconds) {
        double calls = 0;
        double rows = 0;
        for (var entry : after.entrySet()) {
            if (entry.getKey().contains("pg_stat_statements")) {
                continue; // this test's own reading
            }
            double[] was = before.getOrDefault(entry.getKey(), new double[2]);
            calls += entry.getValue()[0] - was[0];
            rows += entry.getValue()[1] - was[1];
        }
        return new double[] {calls / seconds / SOURCES, rows / seconds / SOURCES};
    }

    /** The five statements run most often in the window, with calls and rows per second (all instances). */
    private static List<String> topStatements(Map<String, double[]> before, Map<String, double[]> after,
            double seconds) {
        return after.entrySet().stream()
                .filter(e -> !e.getKey().contains("pg_stat_statements"))
                .map(e -> Map.entry(e.getKey(), new double[] {
                        e.getValue()[0] - before.getOrDefault(e.getKey(), new double[2])[0],
                        e.getValue()[1] - before.getOrDefault(e.getKey(), new double[2])[1]}))
                .filter(e -> e.getValue()[0] > 0)
                .sorted((x, y) -> Double.compare(y.getValue()[0], x.getValue()[0]))
                .limit(5)
                .map(e -> String.format("%.2f calls/s, %.1f rows/s: %s", e.getValue()[0] / seconds,
                        e.getValue()[1] / seconds, e.getKey().replaceAll("\\s+", " ").substring(0,
                                Math.min(90, e.getKey().replaceAll("\\s+", " ").length()))))
                .toList();
    }

    private Map<String, Integer> owners() throws SQLException {
        var owners = new HashMap<String, Integer>();
        query(DATABASE, "SELECT owner, count(*) FROM pgharvest_config.source_lease WHERE owner IS NOT NULL"
                + " GROUP BY owner", rs -> owners.put(rs.getString(1), rs.getInt(2)));
        return owners;
    }

    private TreeSet<String> sourcesOf(String owner) throws SQLException {
        var sources = new TreeSet<String>();
        query(DATABASE, "SELECT source FROM pgharvest_config.source_lease WHERE owner = '" + owner + "'",
                rs -> sources.add(rs.getString(1)));
        return sources;
    }

    private int heartbeatsSince(long epochMillis) throws SQLException {
        int[] count = new int[1];
        query(DATABASE, "SELECT count(*) FROM pgharvest_config.fleet_instance WHERE heartbeat_at > to_timestamp("
                + epochMillis / 1000.0 + ")", rs -> count[0] = rs.getInt(1));
        return count[0];
    }

    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    private static void query(String database, String sql, RowReader reader) throws SQLException {
        try (Connection c = TestPostgres.shared().connect(database);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                reader.read(rs);
            }
        }
    }

    private void awaitEverySourceCollectedAfter(long serverMillis, Member... from) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(collectedAfter(serverMillis, from)).hasSize(SOURCES));
    }

    /** Per source, the first tick after {@code serverMillis} in the output of {@code from}. */
    private Map<String, Long> collectedAfter(long serverMillis, Member... from) throws IOException {
        var first = new HashMap<String, Long>();
        ticksBySource(from).forEach((source, ticks) -> ticks.stream().mapToLong(Tick::serverMillis)
                .filter(t -> t > serverMillis).findFirst().ifPresent(t -> first.put(source, t)));
        return first;
    }

    private Map<String, List<Tick>> ticksBySource(Member... from) throws IOException {
        var ticks = new TreeMap<String, List<Tick>>();
        for (Member process : from) {
            List<String> lines;
            try {
                lines = Files.readAllLines(process.measurements());
            } catch (NoSuchFileException e) {
                continue;
            }
            for (String line : lines) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node;
                try {
                    node = json.readTree(line);
                } catch (RuntimeException torn) {
                    continue; // the last line of a file being written
                }
                if (!"tick_audit".equals(node.path("metric").asString())) {
                    continue;
                }
                long start = java.time.Instant.parse(node.path("time").asString()).toEpochMilli();
                for (JsonNode row : node.path("rows")) {
                    ticks.computeIfAbsent(node.path("source").asString(), k -> new ArrayList<>())
                            .add(new Tick(row.path("server_ms").asLong(), start, process.id()));
                }
            }
        }
        ticks.values().forEach(list -> list.sort(java.util.Comparator.comparingLong(Tick::startMillis)));
        return ticks;
    }

    /** The grid point a tick served: the latest at or before its start (the reaper's phase for the name, 1 s). */
    private static long gridPoint(String source, long startMillis) {
        long phase = Math.floorMod(source.hashCode() * 2_654_435_761L, 1000L);
        return Math.floorDiv(startMillis - phase, 1000L);
    }

    private static final class Audit {
        int sources;
        int ticks;
        int duplicates;
        int lateTicks;
        int missingAtStop;
        int missingInOutage;
        int missingSteady;
        int missingAfterKill;
        int missingBeforeBalanced;
        final List<String> details = new ArrayList<>();
    }

    private static Audit audit(Map<String, List<Tick>> bySource, long balancedAt, long outageStart, long outageEnd,
            Set<String> ofC, long killedAt, long takenOverAt, Set<String> ofB, long stopping, long stopped) {
        var audit = new Audit();
        audit.sources = bySource.size();
        for (var entry : bySource.entrySet()) {
            String source = entry.getKey();
            List<Tick> ticks = entry.getValue();
            audit.ticks += ticks.size();
            for (int i = 1; i < ticks.size(); i++) {
                Tick previous = ticks.get(i - 1);
                Tick tick = ticks.get(i);
                long step = gridPoint(source, tick.startMillis) - gridPoint(source, previous.startMillis);
                if (step == 0) {
                    audit.duplicates++;
                    audit.details.add("duplicate " + source + " at " + tick.startMillis + " by " + previous.instance
                            + " and " + tick.instance);
                }
                if (tick.serverMillis - tick.startMillis > 1_000) {
                    audit.lateTicks++; // for the report: the query ran over a second after its tick began
                }
                if (step <= 1) {
                    continue;
                }
                int missing = (int) (step - 1);
                String where;
                if (previous.startMillis < balancedAt) {
                    audit.missingBeforeBalanced += missing;
                    where = "while balancing";
                } else if (ofB.contains(source) && tick.startMillis >= stopping && previous.startMillis <= stopped) {
                    audit.missingAtStop += missing;
                    where = "at graceful stop";
                } else if (ofC.contains(source) && tick.startMillis >= killedAt - 1_000
                        && previous.startMillis <= takenOverAt) {
                    audit.missingAfterKill += missing;
                    continue; // the takeover gap, measured as takeover time
                } else if (tick.startMillis >= outageStart && previous.startMillis <= outageEnd) {
                    audit.missingInOutage += missing;
                    where = "during store outage";
                } else {
                    audit.missingSteady += missing;
                    where = "in steady state";
                }
                audit.details.add("missing " + missing + " of " + source + " " + where + " between "
                        + previous.startMillis + " (" + previous.instance + ") and " + tick.startMillis + " ("
                        + tick.instance + ")");
            }
        }
        return audit;
    }
}
