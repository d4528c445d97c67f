package io.pgharvest.kind.patroni;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPatroniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A Patroni source registered through the API against a real two-member cluster (Debian's
 * patroni and etcd-server, PostgreSQL 15): both members are collected, each with its role's
 * metric set, their roles show in the source's status, and a switchover through Patroni's REST
 * API is followed: the new primary gets the primary set, the old one the standby set. Then the
 * new primary's Patroni is stopped: the failover is followed too, and the stopped member retired.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PatroniClusterTest {

    private static final String TOKEN = "patroni-test-token-0123456789";
    private static final TestPatroniCluster cluster = TestPatroniCluster.start(2);
    private static final String SOURCE = "pt";
    private static final String M1 = SOURCE + "_m1_postgres";
    private static final String M2 = SOURCE + "_m2_postgres";

    @LocalServerPort
    int port;

    @org.springframework.beans.factory.annotation.Autowired
    RecordingPublisher recorded;

    @TestConfiguration
    static class Recording {
        @Bean
        RecordingPublisher recordingPublisher() {
            return new RecordingPublisher();
        }

        /** Records what the engine publishes on its way to the sinks (the engine's publisher stays the app's own). */
        @Bean
        static BeanPostProcessor recordEngineOutput(ObjectProvider<RecordingPublisher> recording) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (!name.equals("changeEventsPublisher")) {
                        return bean;
                    }
                    MeasurementPublisher app = (MeasurementPublisher) bean;
                    return (MeasurementPublisher) batch -> {
                        recording.getObject().publish(batch);
                        app.publish(batch);
                    };
                }
            };
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        Path dataDir = Files.createTempDirectory("pgharvest-patroni-test");
        registry.add("pgharvest.data-dir", dataDir::toString);
        registry.add("pgharvest.api.token", () -> TOKEN);
        registry.add("pgharvest.connect-timeout", () -> "2s");
        registry.add("pgharvest.patroni.poll-interval", () -> "1s");
        registry.add("pgharvest.patroni.api-metrics-interval", () -> "1s");
        // JSON lines only: the default set's Prometheus endpoint would hold port 9187 for as long
        // as this context stays cached (sinks are not paused), and SinkConfigurationTest needs it.
        registry.add("pgharvest.sinks[0].type", () -> "jsonfile");
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void membersAreCollectedWithTheirRolesSetsAndASwitchoverIsFollowed() throws IOException {
        ApiClient api = new ApiClient(port, TOKEN);
        assertThat(api.post("/api/v1/metrics", Map.of("name", "pt_primary_set",
                "sqls", Map.of("14", "select 1 as on_primary"), "gauges", List.of("*"))).status()).isEqualTo(201);
        assertThat(api.post("/api/v1/metrics", Map.of("name", "pt_standby_set",
                "sqls", Map.of("14", "select 1 as on_standby"), "gauges", List.of("*"))).status()).isEqualTo(201);
        String connStr = "etcd://" + cluster.etcdEndpoint() + TestPatroniCluster.NAMESPACE + TestPatroniCluster.SCOPE
                + "?user=" + TestPatroniCluster.SUPERUSER + "&password=" + TestPatroniCluster.SUPERUSER_PASSWORD;
        var created = api.post("/api/v1/sources", Map.of("name", SOURCE, "kind", "patroni", "connStr", connStr,
                "metrics", Map.of("pt_primary_set", 1), "standbyMetrics", Map.of("pt_standby_set", 1)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.body()).doesNotContain(TestPatroniCluster.SUPERUSER_PASSWORD);

        // Both members collected, each with its role's set; roles in the status.
        awaitMeasurement(M1, "pt_primary_set", Instant.now());
        awaitMeasurement(M2, "pt_standby_set", Instant.now());
        JsonNode status = Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/sources/" + SOURCE + "/status").json(),
                        s -> roleOf(s, M1).equals("primary") && roleOf(s, M2).equals("replica"));
        assertThat(status.toString()).doesNotContain(TestPatroniCluster.SUPERUSER_PASSWORD);
        assertThat(api.get("/api/v1/sources/" + SOURCE).body()).doesNotContain(TestPatroniCluster.SUPERUSER_PASSWORD);
        // Patroni's REST API metrics, as pgwatch stores them.
        Measurement primaryFlag = awaitMeasurement(M1, "patroni_primary", Instant.now());
        assertThat(primaryFlag.rows().getFirst().values()).containsEntry("patroni_primary", 1.0);
        assertThat(primaryFlag.rows().getFirst().tags()).containsEntry("scope", TestPatroniCluster.SCOPE);
        assertThat(awaitMeasurement(M2, "patroni_replica", Instant.now()).rows().getFirst().values())
                .containsEntry("patroni_replica", 1.0);

        // A patroni source has no connection of its own to test; an address pgharvest cannot read is refused.
        var test = api.post("/api/v1/sources/" + SOURCE + "/test", Map.of());
        assertThat(test.status()).isEqualTo(400);
        assertThat(test.body()).contains("kind").contains("discovery.members");
        var zookeeper = api.post("/api/v1/sources", Map.of("name", "pt-zk", "kind", "patroni",
                "connStr", "zookeeper://127.0.0.1:2181/service/x", "preset", "minimal"));
        assertThat(zookeeper.status()).isEqualTo(400);
        assertThat(zookeeper.body()).contains("connStr").contains("zookeeper");

        // Switchover m1 -> m2 through Patroni's REST API, while a probe notes when m2's server is promoted.
        var promotion = new PromotionProbe(cluster.member("m2"));
        Thread probe = Thread.ofVirtual().start(promotion);
        Instant switchStarted = Instant.now();
        cluster.switchover("m2");
        Instant switchDone = Instant.now();
        awaitMeasurement(M2, "pt_primary_set", switchDone);
        cluster.awaitRole(cluster.member("m1"), "replica", Duration.ofSeconds(60));
        Instant m1Replica = Instant.now();
        awaitMeasurement(M1, "pt_standby_set", m1Replica);
        Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/sources/" + SOURCE + "/status").json(),
                        s -> roleOf(s, M1).equals("replica") && roleOf(s, M2).equals("primary"));
        // Once m1 runs as a replica, it no longer gets the primary set.
        Instant settled = Instant.now();
        awaitMeasurement(M1, "pt_standby_set", settled.plusSeconds(2));
        assertThat(recorded.of(M1, "pt_primary_set")).allMatch(m -> m.time().isBefore(m1Replica));

        // The gap: the longest time without a primary-set measurement from any member around the switchover.
        List<Instant> primaryTimes = recorded.all().stream()
                .filter(m -> m.metric().equals("pt_primary_set"))
                .map(Measurement::time)
                .filter(t -> !t.isBefore(switchStarted.minusSeconds(5)))
                .sorted(Comparator.naturalOrder())
                .toList();
        Duration gap = Duration.ZERO;
        for (int i = 1; i < primaryTimes.size(); i++) {
            Duration between = Duration.between(primaryTimes.get(i - 1), primaryTimes.get(i));
            gap = between.compareTo(gap) > 0 ? between : gap;
        }
        Duration newPrimaryLag = Duration.between(switchDone, recorded.of(M2, "pt_primary_set").stream()
                .map(Measurement::time).filter(t -> !t.isBefore(switchStarted)).min(Comparator.naturalOrder())
                .orElseThrow());
        probe.interrupt();
        Instant promoted = promotion.promotedAt();
        assertThat(promoted).as("the probe saw m2 promoted").isNotNull();
        Instant firstPrimarySet = recorded.of(M2, "pt_primary_set").stream().map(Measurement::time)
                .filter(t -> !t.isBefore(promoted)).min(Comparator.naturalOrder()).orElseThrow();
        System.out.printf("PATRONI-SWITCHOVER: switchover call %d ms; longest gap without a primary-set measurement"
                + " %d ms; new primary's first primary-set measurement %d ms after its server left recovery (probe),"
                + " %d ms after Patroni reported the switchover done%n",
                Duration.between(switchStarted, switchDone).toMillis(), gap.toMillis(),
                Duration.between(promoted, firstPrimarySet).toMillis(), newPrimaryLag.toMillis());
        // Failover: m2's Patroni stops (SIGTERM, as a host shutdown would); m1 takes over without the
        // switchover API, gets the primary set, and m2, gone from the DCS, is retired.
        var failoverPromotion = new PromotionProbe(cluster.member("m1"));
        Thread failoverProbe = Thread.ofVirtual().start(failoverPromotion);
        Instant failoverStarted = Instant.now();
        try {
            cluster.stopMember("m2");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        cluster.awaitRole(cluster.member("m1"), "leader", Duration.ofSeconds(60));
        Measurement m1Primary = awaitMeasurement(M1, "pt_primary_set", failoverStarted);
        failoverProbe.interrupt();
        Instant m1Promoted = failoverPromotion.promotedAt();
        assertThat(m1Promoted).as("the probe saw m1 promoted").isNotNull();
        Instant m1FirstPrimarySet = recorded.of(M1, "pt_primary_set").stream().map(Measurement::time)
                .filter(t -> !t.isBefore(m1Promoted)).min(Comparator.naturalOrder()).orElseThrow();
        assertThat(m1Primary.time()).isAfterOrEqualTo(failoverStarted);
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/sources/" + SOURCE + "/status").json(),
                        s -> roleOf(s, M1).equals("primary") && stateOf(s, M2).equals("stopped"));
        System.out.printf("PATRONI-FAILOVER: m1's first primary-set measurement %d ms after its server left recovery"
                + " (probe); %d ms after m2's Patroni was told to stop%n",
                Duration.between(m1Promoted, m1FirstPrimarySet).toMillis(),
                Duration.between(failoverStarted, m1FirstPrimarySet).toMillis());

        // Timing is reported, not asserted (no timing limits in tests); the behaviour is asserted above.
    }

    /** Notes when a member's server first answers that it is not in recovery. */
    private static final class PromotionProbe implements Runnable {
        private final TestPatroniCluster.Member member;
        private volatile Instant promotedAt;

        PromotionProbe(TestPatroniCluster.Member member) {
            this.member = member;
        }

        Instant promotedAt() {
            return promotedAt;
        }

        @Override
        public void run() {
            String url = "jdbc:postgresql://127.0.0.1:" + member.pgPort() + "/postgres?connectTimeout=1";
            while (promotedAt == null && !Thread.currentThread().isInterrupted()) {
                try (var connection = java.sql.DriverManager.getConnection(url, TestPatroniCluster.SUPERUSER,
                        TestPatroniCluster.SUPERUSER_PASSWORD); var statement = connection.createStatement()) {
                    while (promotedAt == null) {
                        try (var rs = statement.executeQuery("select pg_is_in_recovery()")) {
                            rs.next();
                            if (!rs.getBoolean(1)) {
                                promotedAt = Instant.now();
                            }
                        }
                        Thread.sleep(20); // a sampling probe: the server offers nothing to wait on
                    }
                } catch (java.sql.SQLException e) {
                    // restarting; try again
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private Measurement awaitMeasurement(String source, String metric, Instant notBefore) {
        return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .alias(source + "/" + metric + " after " + notBefore + "; recorded: " + new Object() {
                    @Override
                    public String toString() {
                        return recorded.all().stream().map(m -> m.source() + "/" + m.metric()).distinct().toList()
                                .toString();
                    }
                })
                .until(() -> recorded.of(source, metric).stream().filter(m -> !m.time().isBefore(notBefore))
                        .findFirst(), java.util.Optional::isPresent)
                .orElseThrow();
    }

    private static String stateOf(JsonNode status, String member) {
        for (JsonNode m : status.path("discovery").path("members")) {
            if (m.path("name").asString("").equals(member)) {
                return m.path("state").asString("");
            }
        }
        return "";
    }

    private static String roleOf(JsonNode status, String member) {
        for (JsonNode m : status.path("discovery").path("members")) {
            if (m.path("name").asString("").equals(member)) {
                return m.path("role").asString("");
            }
        }
        return "";
    }
}
