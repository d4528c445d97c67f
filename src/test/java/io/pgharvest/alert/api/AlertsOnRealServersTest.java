package io.pgharvest.alert.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Alerts raised by real PostgreSQL servers, each after its {@code for} and resolved after the
 * condition ends: a long open transaction that is idle in transaction, a lock wait naming its
 * blocker, connections near a small max_connections, transaction-ID age over a lowered threshold,
 * and a stopped server, which raises exactly one new alert (unreachable) while its others stay
 * firing, resolved when it is back; a standby whose replay is paused raises the pack's replication-lag
 * rules (bytes on the primary, seconds and paused on the standby), resolved once replay resumes.
 */
class AlertsOnRealServersTest extends ApiTestBase {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private void createRule(String name, String metric, String condition, Map<String, Object> params, String source) {
        var rule = new HashMap<String, Object>();
        rule.put("name", name);
        rule.put("metric", metric);
        rule.put("condition", condition);
        rule.put("for", "1s");
        rule.put("severity", "critical");
        rule.put("summary", "{{ source }}: {{ value }}");
        rule.put("params", params);
        rule.put("sources", Map.of("names", List.of(source)));
        if (metric.equals("blocking_locks")) {
            rule.put("description", "blocked by {{ root_blocker_pid }} running query id {{ blocker_query_id }}");
        }
        ApiClient.Response created = api().put("/api/v1/alert-rules/" + name, rule);
        assertThat(created.status()).as(created.body()).isIn(200, 201);
    }

    /** The built-in rule {@code builtIn}'s condition and texts as rule {@code name}, with a short for and its own params. */
    private void copyBuiltIn(String builtIn, String name, Map<String, Object> params, String source) {
        JsonNode pack = api().get("/api/v1/alert-rules/" + builtIn).json();
        assertThat(pack.get("origin").asString()).isEqualTo("built-in");
        var rule = new HashMap<String, Object>();
        rule.put("name", name);
        for (String field : List.of("metric", "condition", "severity", "summary", "description")) {
            rule.put(field, pack.get(field).asString());
        }
        rule.put("for", "1s");
        rule.put("params", params);
        rule.put("sources", Map.of("names", List.of(source)));
        ApiClient.Response created = api().put("/api/v1/alert-rules/" + name, rule);
        assertThat(created.status()).as(created.body()).isIn(200, 201);
    }

    private void addSource(String name, String connStr, Map<String, Integer> metrics) {
        ApiClient.Response created = api().post("/api/v1/sources", Map.of("name", name, "connStr", connStr,
                "metrics", metrics));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
    }

    private List<JsonNode> alerts(String source) {
        var found = new ArrayList<JsonNode>();
        api().get("/api/v1/alerts").json().valueStream().filter(a -> a.get("source").asString().equals(source))
                .forEach(found::add);
        return found;
    }

    private JsonNode awaitAlert(String rule, String source, String state, Predicate<JsonNode> also) {
        return Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> alerts(source).stream().filter(a -> a.get("alertname").asString().equals(rule)
                        && a.get("state").asString().equals(state) && also.test(a)).findFirst().orElse(null),
                        a -> a != null);
    }

    private void awaitGone(String rule, String source) {
        Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> alerts(source).stream().noneMatch(a -> a.get("alertname").asString().equals(rule)));
    }

    private List<String> history(String source, Instant from) {
        return api().get("/api/v1/alerts/history?from=" + from).json().valueStream()
                .filter(t -> t.at("/labels/source").asString().equals(source))
                .map(t -> t.at("/labels/alertname").asString() + " " + t.get("state").asString()).toList();
    }

    @Test
    void aLongTransactionIdleInTransactionFiresAfterForAndResolvesWhenItEnds() throws Exception {
        Instant start = Instant.now();
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("alerts_tx");
        createRule("rt-longtx", "backends", "longest_tx_seconds > params.max_s", Map.of("max_s", 2), "alerts-tx");
        createRule("rt-idle", "backends", "longest_idle_in_transaction_s > params.max_s", Map.of("max_s", 2), "alerts-tx");
        addSource("alerts-tx", pg.connStr("alerts_tx"), Map.of("backends", 1));

        try (Connection open = pg.connect("alerts_tx"); Statement s = open.createStatement()) {
            open.setAutoCommit(false);
            s.execute("select txid_current()");
            JsonNode longTx = awaitAlert("rt-longtx", "alerts-tx", "firing", a -> true);
            assertThat(Duration.between(Instant.parse(longTx.get("activeSince").asString()),
                    Instant.parse(longTx.get("firingSince").asString()))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(longTx.at("/labels/severity").asString()).isEqualTo("critical");
            assertThat(Double.parseDouble(longTx.get("value").asString())).isGreaterThan(2);
            assertThat(longTx.at("/annotations/summary").asString()).startsWith("alerts-tx: ");
            awaitAlert("rt-idle", "alerts-tx", "firing", a -> true);
            aSilenceShowsOnTheAlertsItHolds();

            assertThat(api().post("/api/v1/alert-rules/rt-longtx/test", Map.of()).json().get("now").valueStream()
                    .map(a -> a.get("source").asString())).contains("alerts-tx");
            // the draft of a rule not saved is tested by the same evaluation, and nothing is saved
            assertThat(api().post("/api/v1/alert-rules/test", Map.of("name", "rt-draft", "metric", "backends",
                    "condition", "longest_tx_seconds > 1.0")).json().get("now").valueStream()
                    .map(a -> a.get("source").asString())).contains("alerts-tx");
            assertThat(api().get("/api/v1/alert-rules/rt-draft").status()).isEqualTo(404);
            // the check-up lists every rule applying to the source: ours firing with their value and threshold
            JsonNode checkUp = api().get("/api/v1/sources/alerts-tx/alert-checks").json();
            assertThat(checkUp.get("evaluatedHere").asBoolean()).isTrue();
            JsonNode idle = checkUp.get("checks").valueStream()
                    .filter(c -> c.get("rule").asString().equals("rt-idle")).findFirst().orElseThrow();
            assertThat(idle.get("state").asString()).isEqualTo("firing");
            assertThat(idle.at("/params/max_s").asDouble()).isEqualTo(2.0);
            assertThat(Double.parseDouble(idle.at("/rows/0/value").asString())).isGreaterThan(2);
            assertThat(idle.at("/rows/0/state").asString()).isEqualTo("firing");
            // the built-in pack's rules on the same metric apply too, and are ok (an hour is far off)
            JsonNode builtIn = checkUp.get("checks").valueStream()
                    .filter(c -> c.get("rule").asString().equals("PostgresLongRunningTransaction")).findFirst()
                    .orElseThrow();
            assertThat(builtIn.get("state").asString()).isEqualTo("ok");
            assertThat(builtIn.at("/params/max_s").asDouble()).isEqualTo(3600.0);
            // a rule of a metric the source does not collect has no data; firing ones are listed first
            assertThat(checkUp.get("checks").valueStream().filter(c -> c.get("metric").asString().equals("db_stats"))
                    .map(c -> c.get("state").asString())).isNotEmpty().containsOnly("no-data");
            assertThat(checkUp.at("/checks/0/state").asString()).isEqualTo("firing");
            String scrape = api().get("/actuator/prometheus").body();
            assertThat(scrape).containsPattern("pgharvest_alert\\{[^}]*alertname=\"rt-longtx\"[^}]*alertstate=\"firing\"");
            open.commit();
        }
        awaitGone("rt-longtx", "alerts-tx");
        awaitGone("rt-idle", "alerts-tx");
        assertThat(history("alerts-tx", start)).containsSubsequence("rt-longtx firing", "rt-longtx resolved")
                .containsSubsequence("rt-idle firing", "rt-idle resolved");
        theLastHourIsReplayedWithFor(start);
    }

    /**
     * The transaction was open for part of the hour: the test replays the window's rows with the
     * rule's for and answers the period it would have been pending, firing and resolved, while
     * nothing raises now; a rule reading a column the window does not keep says so.
     */
    private void theLastHourIsReplayedWithFor(Instant start) {
        JsonNode tested = api().post("/api/v1/alert-rules/rt-longtx/test", Map.of()).json();
        assertThat(tested.get("now").valueStream().map(a -> a.get("source").asString())).doesNotContain("alerts-tx");
        assertThat(tested.get("notReplayed").isNull()).as(tested.toString()).isTrue();
        assertThat(Instant.parse(tested.get("to").asString()).minus(Duration.ofHours(1)))
                .isEqualTo(Instant.parse(tested.get("from").asString()));
        List<JsonNode> periods = tested.get("periods").valueStream()
                .filter(p -> p.get("source").asString().equals("alerts-tx")).toList();
        assertThat(periods).as(tested.toString()).hasSize(1);
        JsonNode period = periods.getFirst();
        Instant pending = Instant.parse(period.get("pendingSince").asString());
        Instant firing = Instant.parse(period.get("firingSince").asString());
        Instant ended = Instant.parse(period.get("endedAt").asString());
        assertThat(pending).isAfter(start);
        assertThat(Duration.between(pending, firing)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(ended).isAfter(firing);
        assertThat(period.get("state").asString()).isEqualTo("resolved");
        assertThat(period.at("/labels/alertname").asString()).isEqualTo("rt-longtx");
        assertThat(Double.parseDouble(period.get("value").asString())).isGreaterThan(2);
        // with a for longer than the transaction was open, it would only have been pending
        JsonNode longFor = api().post("/api/v1/alert-rules/test", Map.of("name", "rt-draft-long", "metric", "backends",
                "condition", "longest_tx_seconds > 2.0", "for", "1h", "sources", Map.of("names", List.of("alerts-tx"))))
                .json();
        assertThat(longFor.get("periods").valueStream().map(p -> p.get("firingSince").isNull()).toList())
                .isNotEmpty().containsOnly(true);
        JsonNode notKept = api().post("/api/v1/alert-rules/test", Map.of("name", "rt-draft-idle", "metric", "backends",
                "condition", "longest_idle_in_transaction_s > 2.0")).json();
        assertThat(notKept.get("notReplayed").asString()).contains("longest_idle_in_transaction_s");
        assertThat(notKept.get("periods").size()).isZero();
    }

    /** A silence of rt-idle shows in that alert's silencedBy, not rt-longtx's, and wakes a blocking query. */
    private void aSilenceShowsOnTheAlertsItHolds() {
        long index = api().get("/api/v1/alerts").index();
        long seen = index;
        CompletableFuture<ApiClient.Response> waiting = api().getAsync("/api/v1/alerts?index=" + index + "&wait=60s");
        ApiClient.Response created = api().post("/api/v1/silences", Map.of("matchers", List.of(Map.of("name",
                "alertname", "value", "rt-idle"), Map.of("name", "source", "value", "alerts-.*", "isRegex", true)),
                "endsAt", Instant.now().plus(Duration.ofHours(1)).toString(), "author", "dba-on-call"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().get("id").asString();
        // Another alert's change may answer first: follow the query until an answer shows the silence.
        // Each answer has a higher index than the one it waited on (a wait that timed out would not).
        JsonNode woken = null;
        for (int answers = 0; answers < 5 && woken == null; answers++) {
            ApiClient.Response answer = waiting.join();
            assertThat(answer.index()).as("woken by a change, not timed out").isGreaterThan(seen);
            seen = answer.index();
            boolean silenced = answer.json().valueStream().anyMatch(a -> a.get("alertname").asString().equals("rt-idle")
                    && a.get("silencedBy").size() > 0);
            if (silenced) {
                woken = answer.json();
            } else {
                waiting = api().getAsync("/api/v1/alerts?index=" + seen + "&wait=60s");
            }
        }
        assertThat(woken).as("an answer showing the silence").isNotNull();
        JsonNode idle = woken.valueStream().filter(a -> a.get("alertname").asString().equals("rt-idle"))
                .findFirst().orElseThrow();
        assertThat(idle.at("/silencedBy/0/id").asString()).isEqualTo(id);
        assertThat(idle.at("/silencedBy/0/author").asString()).isEqualTo("dba-on-call");
        assertThat(idle.at("/silencedBy/0/origin").asString()).isEqualTo("pgharvest");
        assertThat(idle.get("silencedBy").size()).isEqualTo(1);
        assertThat(woken.valueStream().filter(a -> a.get("alertname").asString().equals("rt-longtx"))
                .findFirst().orElseThrow().get("silencedBy").size()).isZero();
        assertThat(api().delete("/api/v1/silences/" + id).status()).isEqualTo(204);
        assertThat(alerts("alerts-tx").stream().filter(a -> a.get("alertname").asString().equals("rt-idle"))
                .findFirst().orElseThrow().get("silencedBy").size()).isZero();
    }

    @Test
    void aLockWaitFiresWithTheBlockersPidAndQueryIdAndResolvesWhenTheLockIsReleased() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("alerts_lock");
        pg.execute("alerts_lock", "create table if not exists held (id int primary key); insert into held values (1)"
                + " on conflict do nothing");
        createRule("rt-lock", "blocking_locks", "wait_s > params.max_s", Map.of("max_s", 1), "alerts-lock");
        addSource("alerts-lock", pg.connStr("alerts_lock"), Map.of("blocking_locks", 1));

        try (Connection blocker = pg.connect("alerts_lock"); Statement s = blocker.createStatement()) {
            blocker.setAutoCommit(false);
            s.execute("set compute_query_id = on");
            s.execute("update held set id = 1 where id = 1");
            String blockerPid;
            try (ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
                rs.next();
                blockerPid = rs.getString(1);
            }
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> pg.execute("alerts_lock",
                    "update held set id = 1 where id = 1"));
            JsonNode lock = awaitAlert("rt-lock", "alerts-lock", "firing", a -> true);
            assertThat(lock.at("/labels/root_blocker_pid").asString()).isEqualTo(blockerPid);
            assertThat(lock.at("/labels/blocked_pid").asString()).isNotEqualTo(blockerPid).isNotBlank();
            assertThat(lock.at("/annotations/description").asString()).startsWith("blocked by " + blockerPid
                    + " running query id ");
            blocker.rollback();
            waiter.get();
        }
        awaitGone("rt-lock", "alerts-lock");
    }

    @Test
    void connectionsNearASmallMaxXidAgeAndAStoppedServerRaiseTheRightAlertsOnceAndResolve() throws Exception {
        Instant start = Instant.now();
        try (TestPostgres own = TestPostgres.start(Map.of("max_connections", "12"))) {
            createRule("rt-conn", "connection_usage", "used_pct > params.max_pct", Map.of("max_pct", 60), "alerts-own");
            createRule("rt-xid", "xid_wraparound", "xid_age > params.max_age", Map.of("max_age", 1), "alerts-own");
            createRule("rt-down", "instance_up", "instance_up == 0", Map.of(), "alerts-own");
            addSource("alerts-own", own.connStr("postgres"), Map.of("connection_usage", 1, "xid_wraparound", 1));

            for (int i = 0; i < 5; i++) {
                own.execute("postgres", "select txid_current()"); // an age of 5 and more, whatever initdb left
            }
            var held = new ArrayList<Connection>();
            try {
                for (int i = 0; i < 8; i++) {
                    held.add(own.connect("postgres"));
                }
                awaitAlert("rt-conn", "alerts-own", "firing", a -> Double.parseDouble(a.get("value").asString()) > 60);
                JsonNode xid = awaitAlert("rt-xid", "alerts-own", "firing", a -> a.at("/labels/datname").asString()
                        .equals("postgres"));
                assertThat(xid.at("/annotations/summary").asString()).startsWith("alerts-own: ");
                List<String> beforeStop = history("alerts-own", start);

                own.stop(); // the connections held end with it: rt-conn would resolve if it were evaluated
                awaitAlert("rt-down", "alerts-own", "firing", a -> true);
                Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                        .pollInterval(Duration.ofMillis(250)).until(() -> {
                            List<String> now = new ArrayList<>(history("alerts-own", start));
                            now.removeAll(beforeStop);
                            return now.equals(List.of("rt-down firing"));
                        });
                assertThat(alerts("alerts-own")).extracting(a -> a.get("alertname").asString() + " "
                        + a.get("state").asString()).contains("rt-down firing", "rt-conn firing", "rt-xid firing");
            } finally {
                for (Connection c : held) {
                    c.close();
                }
            }

            own.start();
            awaitGone("rt-down", "alerts-own");
            awaitGone("rt-conn", "alerts-own");
            createRule("rt-xid", "xid_wraparound", "xid_age > params.max_age", Map.of("max_age", 2_000_000_000),
                    "alerts-own");
            awaitGone("rt-xid", "alerts-own");
            assertThat(history("alerts-own", start)).containsSubsequence("rt-down firing", "rt-down resolved")
                    .filteredOn("rt-down firing"::equals).hasSize(1);
        } finally {
            api().delete("/api/v1/sources/alerts-own");
        }
    }

    @Test
    void aStandbyWithReplayPausedRaisesThePacksLagRulesAfterForAndTheyResolveWhenReplayResumes() throws Exception {
        try (TestPostgres primary = TestPostgres.start(Map.of())) {
            primary.createDatabase("lagdb");
            primary.execute("lagdb", "create table filler (id int, pad text)");
            try (TestPostgres standby = primary.startStandby("alerts_standby")) {
                // a transaction replayed since the standby started: its replay timestamp is not NULL
                primary.execute("lagdb", "insert into filler values (0, 'first')");
                primary.awaitReplayedOn(standby, Duration.ofSeconds(60));
                copyBuiltIn("PostgresReplicationLagBytesHigh", "rt-lag-bytes", Map.of("max_b", 100_000), "lag-primary");
                copyBuiltIn("PostgresStandbyReplayLagHigh", "rt-lag-s", Map.of("max_s", 1), "lag-standby");
                copyBuiltIn("PostgresStandbyReplayPaused", "rt-paused", Map.of(), "lag-standby");
                addSource("lag-primary", primary.connStr("lagdb"), Map.of("replication", 1));
                addSource("lag-standby", standby.connStr("lagdb"), Map.of("standby_replay", 1));
                try {
                    standby.execute("postgres", "select pg_wal_replay_pause()");
                    // about 1 MB of WAL the standby receives and does not replay
                    primary.execute("lagdb", "insert into filler select g, repeat('x', 100) from generate_series(1, 5000) g");

                    JsonNode bytes = awaitAlert("rt-lag-bytes", "lag-primary", "firing", a -> true);
                    assertThat(bytes.at("/labels/application_name").asString()).isEqualTo("alerts_standby");
                    assertThat(Double.parseDouble(bytes.get("value").asString())).isGreaterThan(100_000);
                    assertThat(Duration.between(Instant.parse(bytes.get("activeSince").asString()),
                            Instant.parse(bytes.get("firingSince").asString()))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
                    JsonNode seconds = awaitAlert("rt-lag-s", "lag-standby", "firing", a -> true);
                    assertThat(Double.parseDouble(seconds.get("value").asString())).isGreaterThan(1);
                    awaitAlert("rt-paused", "lag-standby", "firing", a -> true);

                    standby.execute("postgres", "select pg_wal_replay_resume()");
                    awaitGone("rt-lag-bytes", "lag-primary");
                    awaitGone("rt-lag-s", "lag-standby");
                    awaitGone("rt-paused", "lag-standby");
                } finally {
                    api().delete("/api/v1/sources/lag-primary");
                    api().delete("/api/v1/sources/lag-standby");
                }
            }
        }
    }
}
