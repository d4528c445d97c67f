package io.pgharvest.reaper;

import io.pgharvest.kind.TestEndpoints;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.fanout.FanOutRewrite;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.Source;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fan-out is invisible in the sinks: three databases of one server are collected once per
 * database (the metrics without their instance-wide variant) and once fanned out (the same
 * metrics with it), and what reaches the publisher is compared both ways: the same sources, the
 * same measurements, rows, columns, tags and, where the data stands still, the same values.
 */
class FanOutEquivalenceTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final List<String> DATABASES = List.of("fo_a", "fo_b", "fo_c");
    /** Idle sessions per database, so that activity differs between the databases. */
    private static final List<Connection> fixtureSessions = new ArrayList<>();

    private static final MetricDefinition FIXTURE_ACTIVITY = new MetricDefinition("fo_activity", "",
            Map.of(10, """
                    select coalesce(state, '') as tag_state, count(*) as sessions
                    from pg_stat_activity
                    where datname = current_database() and application_name = 'fanout-fixture'
                    group by state order by state"""),
            List.of("*"), false, NodeStatus.ANY, null, null, null,
            Map.of(10, """
                    select datname as fan_out_dbname, coalesce(state, '') as tag_state, count(*) as sessions
                    from pg_stat_activity
                    where application_name = 'fanout-fixture'
                    group by datname, state order by datname, state"""));
    private static final MetricDefinition FIXTURE_STATEMENTS = new MetricDefinition("fo_statements", "",
            Map.of(10, """
                    select s.query as tag_query, s.calls
                    from public.pg_stat_statements s
                    where s.dbid = (select oid from pg_database where datname = current_database())
                      and s.query like '%fanout_fixture_marker%'
                    order by s.query"""),
            List.of(), false, NodeStatus.ANY, null, null, null,
            Map.of(10, """
                    select d.datname as fan_out_dbname, s.query as tag_query, s.calls
                    from public.pg_stat_statements s join pg_database d on d.oid = s.dbid
                    where s.query like '%fanout_fixture_marker%'
                    order by d.datname, s.query"""));
    /**
     * Written here in the style of pgwatch's per-database metrics (no instance_sqls): the import
     * derives their variants ({@link FanOutRewrite}); the last must stay per database.
     */
    private static final List<MetricDefinition> IMPORTED = List.of(
            imported("im_statements", """
                    with mine as (
                      select s.queryid, sum(s.calls)::int8 as calls, max(s.query) as query
                      from public.pg_stat_statements s
                      where s.dbid = (select oid from pg_database where datname = current_database())
                        and s.query like '%fanout_fixture_marker%'
                      group by s.queryid
                    )
                    select /* imported */ (extract(epoch from now()) * 1e9)::int8 as epoch_ns,
                      ltrim(query) as tag_query, calls
                    from mine order by calls desc, query limit 2"""),
            imported("im_statement_totals", """
                    select coalesce(sum(calls), 0)::int8 as calls, count(*) as statements
                    from public.pg_stat_statements
                    where dbid = (select oid from pg_database where datname = current_database())
                      and query like '%fanout_only_in_b%'"""),
            imported("im_activity", """
                    with others as (
                      select * from pg_stat_activity
                      where datname = current_database() and pid != pg_backend_pid()
                    )
                    select coalesce(application_name, '') as tag_app, coalesce(state, '') as tag_state,
                      count(*) as sessions,
                      (select count(*) from pg_stat_activity
                        where pid != pg_backend_pid() and application_name = 'pgharvest'
                          and datname like 'fo\\_%') as collector_sessions_elsewhere
                    from others group by 1, 2 order by 1, 2"""),
            imported("im_locks", """
                    with held as (
                      select l.* from pg_locks l join pg_database d on d.oid = l.database
                      where d.datname = current_database() and l.pid <> pg_backend_pid()
                    )
                    select kind as tag_kind, coalesce((select count(*) from held where locktype = kind), 0) as count
                    from unnest('{advisory, userlock}'::text[]) kind"""),
            imported("im_tables", """
                    select current_database() as tag_db, count(*) as tables
                    from pg_class c where c.relkind = 'r' and c.relname like 'fo\\_table%'"""));
    /** Built-in metrics with an instance-wide variant, and the columns whose values stand still here. */
    private static final Map<String, Set<String>> BUILT_IN = Map.of(
            "db_stats", Set.of("stats_reset_epoch_s"),
            "backends", Set.of("total", "active", "idle", "idleintransaction", "waiting", "background_workers",
                    "max_connections"),
            "stat_statements_totals", Set.of("max_entries"),
            "stat_statements_calls", Set.of(),
            "datfrozenxid", Set.of(),
            "stat_statements", Set.of(),
            "long_running_queries", Set.of(),
            "idle_in_transaction", Set.of());

    @BeforeAll
    static void databasesWithDifferentActivity() throws SQLException {
        for (int i = 0; i < DATABASES.size(); i++) {
            String db = DATABASES.get(i);
            pg.createDatabase(db);
            pg.execute(db, "create extension if not exists pg_stat_statements");
            for (int s = 0; s <= i; s++) {
                Connection session = java.sql.DriverManager.getConnection(
                        pg.jdbcUrl(db) + "&ApplicationName=fanout-fixture");
                fixtureSessions.add(session);
            }
            try (Connection c = pg.connect(db); Statement st = c.createStatement()) {
                for (int run = 0; run < 3 * (i + 1); run++) {
                    st.execute("select " + i + " as fanout_fixture_marker");
                }
                if (i == 1) {
                    // (a query shaped like no other here: pg_stat_statements ignores column aliases)
                    st.execute("select 1, 2, 3 as fanout_only_in_b");
                }
                if (i == 2) {
                    st.execute("create table if not exists fo_table_c (id int)");
                }
            }
            if (i == 1) {
                // A lock held in one database only: im_locks must report it there and nowhere else.
                try (Statement st = fixtureSessions.getLast().createStatement()) {
                    st.execute("select pg_advisory_lock(4242)");
                }
            }
        }
    }

    @AfterAll
    static void closeFixtureSessions() throws SQLException {
        for (Connection session : fixtureSessions) {
            session.close();
        }
    }

    @Test
    void fannedOutRowsAreThoseEachDatabaseReturnsItself(@TempDir Path perDatabaseDir, @TempDir Path fanOutDir)
            throws Exception {
        Map<String, Map<String, Measurement>> perDatabase = collect(perDatabaseDir, false);
        Map<String, Map<String, Measurement>> fannedOut = collect(fanOutDir, true);

        assertThat(fannedOut.keySet()).isEqualTo(perDatabase.keySet()).hasSize(DATABASES.size());
        for (String source : perDatabase.keySet()) {
            var mine = perDatabase.get(source);
            var theirs = fannedOut.get(source);
            assertThat(theirs.keySet()).as(source).isEqualTo(mine.keySet());
            var exact = new ArrayList<>(List.of("fo_activity", "fo_statements"));
            IMPORTED.forEach(m -> exact.add(m.name()));
            for (String metric : exact) {
                assertThat(theirs.get(metric).rows()).as(source + " " + metric).isEqualTo(mine.get(metric).rows());
                assertThat(theirs.get(metric).tags()).isEqualTo(mine.get(metric).tags());
            }
            BUILT_IN.forEach((metric, stable) -> {
                var a = mine.get(metric);
                var b = theirs.get(metric);
                assertThat(b.metric()).isEqualTo(a.metric());
                assertThat(b.tags()).isEqualTo(a.tags());
                if (metric.equals("stat_statements")) {
                    // Its rows include pgharvest's own queries, which differ between the two runs:
                    // compared through the fixture's rows below, and by columns here.
                    assertThat(List.copyOf(b.rows().getFirst().values().keySet()))
                            .isEqualTo(List.copyOf(a.rows().getFirst().values().keySet()));
                    return;
                }
                assertThat(b.rows()).as(source + " " + metric + " rows").hasSameSizeAs(a.rows());
                for (int i = 0; i < a.rows().size(); i++) {
                    var rowA = a.rows().get(i);
                    var rowB = b.rows().get(i);
                    assertThat(List.copyOf(rowB.values().keySet())).as(source + " " + metric + " columns")
                            .isEqualTo(List.copyOf(rowA.values().keySet()));
                    assertThat(rowB.tags().keySet()).isEqualTo(rowA.tags().keySet());
                    for (String column : stable) {
                        assertThat(rowB.values().get(column)).as(source + " " + metric + "." + column)
                                .isEqualTo(rowA.values().get(column));
                    }
                }
            });
            // The fixture's statements show up in the built-in top list the same way.
            assertThat(fixtureRows(theirs.get("stat_statements"))).isEqualTo(fixtureRows(mine.get("stat_statements")))
                    .isNotEmpty();
        }
        // The databases really differ, so a row delivered to the wrong source would show.
        for (String metric : List.of("fo_activity", "im_statements", "im_activity")) {
            assertThat(perDatabase.get("fo_c").get(metric).rows())
                    .isNotEqualTo(perDatabase.get("fo_a").get(metric).rows());
        }
        assertThat(perDatabase.get("fo_b").get("im_statement_totals").rows().getFirst().values().get("statements"))
                .isNotEqualTo(0L);
        assertThat(perDatabase.get("fo_a").get("im_statement_totals").rows().getFirst().values())
                .containsEntry("statements", 0L);
        assertThat(perDatabase.get("fo_b").get("im_locks").rows().getFirst().values()).containsEntry("count", 1L);
        assertThat(perDatabase.get("fo_a").get("im_locks").rows().getFirst().values()).containsEntry("count", 0L);
        assertThat(perDatabase.get("fo_a").get("im_activity").rows().getFirst().values())
                .containsEntry("collector_sessions_elsewhere", 2L);
        assertThat(perDatabase.get("fo_c").get("im_tables").rows().getFirst().values()).containsEntry("tables", 1L);
        assertThat(perDatabase.get("fo_a").get("im_tables").rows().getFirst().values()).containsEntry("tables", 0L);
    }

    private static List<Measurement.Row> fixtureRows(Measurement stat) {
        return stat.rows().stream().filter(r -> String.valueOf(r.tags().get("query"))
                .contains("fanout_fixture_marker")).map(r -> {
                    var values = new TreeMap<String, Object>();
                    values.put("calls", r.values().get("calls"));
                    return new Measurement.Row(values, r.tags());
                }).toList();
    }

    /**
     * Runs the three sources until every metric has been delivered to each from a round in which
     * all three had joined the instance; returns the last measurement per source and metric. When
     * fanning out, checks that the three sources' results of each fanned-out metric are one read.
     */
    private static Map<String, Map<String, Measurement>> collect(Path dir, boolean fanOut) throws Exception {
        ConfigStore store = TestStores.inDirectory(dir);
        var snapshot = store.snapshot();
        var metrics = new ArrayList<MetricDefinition>(List.of(FIXTURE_ACTIVITY, FIXTURE_STATEMENTS));
        BUILT_IN.keySet().forEach(name -> metrics.add(snapshot.metrics().get(name)));
        // As the pgwatch import stores them: with the variants it derives, or (per database) without.
        IMPORTED.forEach(m -> metrics.add(fanOut ? FanOutRewrite.withDerivedVariants(m) : m));
        var selection = new HashMap<String, Integer>();
        for (MetricDefinition metric : metrics) {
            store.putMetric(fanOut || metric.name().startsWith("im_") ? metric : withoutInstanceVariant(metric));
            selection.put(metric.name(), 2);
        }
        for (String db : DATABASES) {
            store.putSource(new Source(db, pg.connStr(db), null, null, true, null, selection, null, null,
                    Map.of("env", "test"), false, null, null));
        }
        var publisher = new RecordingPublisher();
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                TestEndpoints.of(ReaperTestKit.sessions())));
        service.start();
        try {
            // Three rounds: the first may run before every source has joined the instance.
            for (String db : DATABASES) {
                publisher.await(m -> m.source().equals(db) && m.metric().equals("fo_statements"), 3,
                        Duration.ofSeconds(30));
            }
            // The status shows the instance layer: three sources on one instance, and what fans out.
            for (String db : DATABASES) {
                var share = service.status(db).orElseThrow().instance();
                assertThat(share.sources()).isEqualTo(DATABASES.size());
                assertThat(share.fannedOutMetrics()).isEqualTo(fanOut
                        ? List.of("backends", "datfrozenxid", "db_stats", "fo_activity", "fo_statements",
                                "idle_in_transaction", "im_activity", "im_locks", "im_statement_totals",
                                "im_statements", "long_running_queries", "stat_statements", "stat_statements_calls",
                                "stat_statements_totals")
                        : List.of());
            }
        } finally {
            service.stop();
        }
        var last = new TreeMap<String, Map<String, Measurement>>();
        for (Measurement m : publisher.all()) {
            if (!m.metric().equals(ReaperPlan.INSTANCE_UP_METRIC)) {
                last.computeIfAbsent(m.source(), s -> new TreeMap<>()).merge(m.metric(), m,
                        (a, b) -> b.time().isAfter(a.time()) ? b : a);
            }
        }
        if (fanOut) {
            // One read for the three databases: the three sources hold measurements of the same fetch
            // time. Compare the newest such round (the newest measurement of one source may be of a
            // round the others had not taken yet when the engine stopped).
            for (String metric : metrics.stream().filter(m -> !m.instanceSqls().isEmpty())
                    .map(MetricDefinition::name).toList()) {
                java.util.Set<java.time.Instant> common = null;
                for (String db : DATABASES) {
                    var times = publisher.of(db, metric).stream().map(Measurement::time).collect(Collectors.toSet());
                    if (common == null) {
                        common = new java.util.HashSet<>(times);
                    } else {
                        common.retainAll(times);
                    }
                }
                assertThat(common).as(metric + " was read once for the three databases").isNotEmpty();
                var newest = common.stream().max(java.time.Instant::compareTo).orElseThrow();
                for (String db : DATABASES) {
                    last.get(db).put(metric, publisher.of(db, metric).stream()
                            .filter(m -> m.time().equals(newest)).findFirst().orElseThrow());
                }
            }
        }
        return last;
    }

    private static MetricDefinition imported(String name, String sql) {
        return new MetricDefinition(name, "", Map.of(10, sql), List.of(), false, NodeStatus.ANY, null, null, null);
    }

    private static MetricDefinition withoutInstanceVariant(MetricDefinition m) {
        return new MetricDefinition(m.name(), m.description(), m.sqls(), m.gauges(), m.instanceLevel(),
                m.nodeStatus(), m.storageName(), m.initSql(), m.statementTimeoutSeconds());
    }
}
