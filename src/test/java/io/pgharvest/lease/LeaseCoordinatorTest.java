package io.pgharvest.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.postgres.PostgresConfigStore;
import io.pgharvest.store.postgres.PostgresStores;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lease protocol of several coordinators on one real configuration database, without
 * reapers: each coordinator's {@link LeaseCoordinator#held} is what its reaper service would run.
 */
class LeaseCoordinatorTest {

    private static final FleetProperties FAST = new FleetProperties(null, Duration.ofSeconds(3),
            Duration.ofMillis(500), List.of(), 5);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private PostgresConfigStore store;
    private HikariDataSource pool;

    @BeforeEach
    void fleetOfSixtySources() {
        String url = PostgresStores.newDatabase("fleet_leases");
        store = PostgresConfigStore.open(url, Duration.ofMillis(200));
        resources.add(store);
        var sources = IntStream.range(0, 60).mapToObj(i -> new Source("s" + i, "postgresql://u@db/d" + i, null, null,
                true, "basic", Map.of(), null, Map.of(), Map.of(), false, null, null)).toList();
        store.putAll(new ConfigChanges(sources, List.of(), List.of()), false);
        var parsed = ConnectionString.parse(url);
        var config = new HikariConfig();
        config.setJdbcUrl(parsed.jdbcUrl());
        config.setDataSourceProperties(parsed.jdbcProperties());
        config.setMaximumPoolSize(9);
        config.setConnectionInitSql("SET search_path = pgharvest_config");
        pool = new HikariDataSource(config);
        resources.add(pool);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    /**
     * The next owner learns the grid point the previous one ran last from the row it claims, not
     * from a view of the leases read before: a hand-back between that read and the claim would
     * otherwise leave it an older tick, and it would run the last grid point a second time (seen
     * once in FleetProcessesTest: a tick collected by two instances while the fleet balanced).
     */
    @Test
    void aClaimCarriesThePreviousOwnersLastTickAsTheRowHoldsIt() throws Exception {
        var a = new LeaseTable("a", Duration.ofSeconds(3));
        var b = new LeaseTable("b", Duration.ofSeconds(3));
        try (Connection c = pool.getConnection()) {
            assertThat(a.claim(c, "s1", false)).contains(new LeaseTable.Claim(null));
            assertThat(b.claim(c, "s1", false)).as("held by a").isEmpty();
            Instant last = Instant.parse("2026-11-23T10:00:01.250Z");
            a.free(c, "s1", last);

            assertThat(b.claim(c, "s1", false)).contains(new LeaseTable.Claim(last));
        }
    }

    private LeaseCoordinator start(String id, FleetProperties properties) {
        var coordinator = new LeaseCoordinator(id, properties, store, pool, source -> Optional.empty(), () -> { });
        // A stand-in for the reaper service: runs what it may, reports stops at once.
        var running = new HashSet<String>();
        Thread.ofVirtual().start(() -> follow(coordinator, running));
        coordinator.start();
        resources.add(coordinator::halt);
        return coordinator;
    }

    private static void follow(LeaseCoordinator coordinator, Set<String> running) {
        long seen = -1;
        try {
            while (true) {
                seen = coordinator.changes().awaitAbove(seen, Duration.ofSeconds(1));
                for (String source : List.copyOf(running)) {
                    if (!coordinator.holds(source)) {
                        running.remove(source);
                        coordinator.released(source, null);
                    }
                }
                for (int i = 0; i < 60; i++) {
                    String source = "s" + i;
                    if (!running.contains(source) && coordinator.holds(source) && coordinator.acquire(source)) {
                        running.add(source);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void assertEachSourceHeldOnce(List<LeaseCoordinator> coordinators) {
        var all = new ArrayList<String>();
        coordinators.forEach(c -> all.addAll(c.held()));
        assertThat(all).doesNotHaveDuplicates().hasSize(60);
    }

    @Test
    void threeInstancesShareSixtySourcesEvenlyAndEachSourceHasOneOwner() {
        var coordinators = List.of(start("a", FAST), start("b", FAST), start("c", FAST));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(coordinators);
            coordinators.forEach(c -> assertThat(c.held()).hasSize(20));
        });
    }

    @Test
    void aCrashedInstancesSourcesAreTakenOverAfterItsLeasesExpire() {
        var a = start("a", FAST);
        var b = start("b", FAST);
        var c = start("c", FAST);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(List.of(a, b, c));
            assertThat(c.held()).hasSize(20);
        });
        Set<String> orphaned = c.held();

        c.halt();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(List.of(a, b));
            assertThat(a.held().size() + b.held().size()).isEqualTo(60);
        });
    }

    @Test
    void aGracefulStopHandsEverySourceOverAndAJoinRebalancesInSmallSteps() {
        var a = start("a", FAST);
        var b = start("b", FAST);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(List.of(a, b));
            assertThat(a.held()).hasSize(30);
        });

        var c = start("c", FAST);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(List.of(a, b, c));
            assertThat(c.held()).hasSize(20);
        });

        a.stop();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(List.of(b, c));
            assertThat(b.held()).hasSize(30);
        });
        assertThat(a.held()).isEmpty();
    }

    @Test
    void aGroupFilterKeepsAnInstanceToItsGroups() {
        ConfigSnapshot snapshot = store.snapshot();
        var grouped = new ArrayList<Source>();
        for (int i = 0; i < 10; i++) {
            Source s = snapshot.sources().get("s" + i);
            grouped.add(new Source(s.name(), s.connStr(), s.kind(), "eu", s.enabled(), s.preset(), s.metrics(),
                    s.standbyPreset(), s.standbyMetrics(), s.tags(), s.onlyIfPrimary(), s.includePattern(),
                    s.excludePattern()));
        }
        store.putAll(new ConfigChanges(grouped, List.of(), List.of()), false);
        var eu = start("eu", new FleetProperties(null, Duration.ofSeconds(3), Duration.ofMillis(500), List.of("eu"), 5));
        var any = start("any", FAST);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEachSourceHeldOnce(List.of(eu, any));
            assertThat(eu.held()).isNotEmpty().allMatch(name -> Integer.parseInt(name.substring(1)) < 10);
        });
    }
}
