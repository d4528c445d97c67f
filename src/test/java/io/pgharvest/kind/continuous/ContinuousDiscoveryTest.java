package io.pgharvest.kind.continuous;

import io.pgharvest.discovery.DiscoveryProperties;
import io.pgharvest.discovery.SourceExpansion;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.reaper.ReaperProperties;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Continuous discovery against a real server: databases created and dropped while pgharvest runs
 * get reapers started and retired within the rediscovery interval, under pgwatch's derived names,
 * with templates, closed databases and the patterns honoured.
 */
public class ContinuousDiscoveryTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Duration INTERVAL = Duration.ofSeconds(2);
    private final RecordingPublisher publisher = new RecordingPublisher();
    private ConfigStore store;
    private ReaperService service;

    @BeforeAll
    static void databases() {
        for (String db : List.of("cd_app1", "cd_app2", "cd_app_other", "cd_closed")) {
            pg.createDatabase(db);
        }
        pg.execute("postgres", "alter database cd_closed allow_connections false");
        pg.execute("postgres", "drop database if exists cd_template");
        pg.execute("postgres", "create database cd_template is_template true");
        pg.execute("postgres", "drop database if exists cd_app3");
    }

    @BeforeEach
    void startService(@TempDir Path dir) {
        store = TestStores.inDirectory(dir);
        store.putMetric(new MetricDefinition("dbname", "", Map.of(10, "select current_database()::text as db"),
                List.of(), false, NodeStatus.ANY, null, null, null));
        service = startEngine(store, publisher, INTERVAL);
    }

    @AfterEach
    void stopService() {
        service.stop();
    }

    @Test
    void databasesCreatedAndDroppedWhileRunningGetReapersStartedAndRetiredWithinTheInterval() throws Exception {
        store.putSource(discovering("disc", "^cd_app", "other$"));
        publisher.await(m -> m.source().equals("disc_cd_app1"), 1, Duration.ofSeconds(10));
        publisher.await(m -> m.source().equals("disc_cd_app2"), 1, Duration.ofSeconds(10));
        assertThat(members("disc")).containsExactly("disc_cd_app1", "disc_cd_app2");
        // Each derived source really collects its own database.
        assertThat(publisher.of("disc_cd_app2", "dbname").getFirst().rows().getFirst().values().get("db"))
                .isEqualTo("cd_app2");

        long created = System.nanoTime();
        pg.createDatabase("cd_app3");
        publisher.await(m -> m.source().equals("disc_cd_app3"), 1, INTERVAL.plusSeconds(5));
        Duration appeared = Duration.ofNanos(System.nanoTime() - created);

        long dropped = System.nanoTime();
        pg.execute("postgres", "drop database cd_app2 with (force)");
        await().atMost(INTERVAL.plusSeconds(5)).until(() -> service.status("disc_cd_app2")
                .map(s -> s.state() == SessionState.STOPPED).orElse(false));
        Duration retired = Duration.ofNanos(System.nanoTime() - dropped);
        System.out.printf("continuous discovery (interval %d s): new database collected after %d ms,"
                + " dropped database retired after %d ms%n", INTERVAL.toSeconds(), appeared.toMillis(),
                retired.toMillis());

        DiscoveryStatus found = service.discovery("disc").orElseThrow();
        assertThat(found.members()).extracting(DiscoveryStatus.Member::name)
                .containsExactly("disc_cd_app1", "disc_cd_app3", "disc_cd_app2");
        assertThat(found.members().getLast().retiredAt()).isNotNull();
        assertThat(found.members().getLast().role()).isEqualTo("cd_app2");
        assertThat(found.lastDiscoveryAt()).isNotNull();
        assertThat(found.lastError()).isNull();
        pg.createDatabase("cd_app2");
    }

    @Test
    void templatesAndDatabasesThatRefuseConnectionsAreNeverDiscovered() throws Exception {
        store.putSource(discovering("all", "^cd_", null));
        publisher.await(m -> m.source().equals("all_cd_app1"), 1, Duration.ofSeconds(10));
        assertThat(members("all")).contains("all_cd_app1", "all_cd_app_other")
                .doesNotContain("all_cd_closed", "all_cd_template");
    }

    @Test
    void patternsAreServerRegularExpressionsMatchingAnywhereAndCaseSensitive() throws Exception {
        store.putSource(discovering("pat", "APP|_app1", "  "));
        publisher.await(m -> m.source().equals("pat_cd_app1"), 1, Duration.ofSeconds(10));
        // "APP" matches nothing (case-sensitive); "_app1" matches inside the name; a blank exclude excludes nothing.
        assertThat(members("pat")).containsExactly("pat_cd_app1");
    }

    private List<String> members(String source) {
        return service.discovery(source).orElseThrow().members().stream()
                .filter(m -> m.retiredAt() == null).map(DiscoveryStatus.Member::name).toList();
    }

    private static Source discovering(String name, String include, String exclude) {
        return new Source(name, pg.connStr("postgres"), SourceKind.fromLabel("postgres-continuous-discovery"), null, true, null,
                Map.of("dbname", 1), null, null, Map.of(), false, include, exclude);
    }

    public static ReaperService startEngine(ConfigStore store, RecordingPublisher publisher, Duration interval) {
        var sessions = new SessionOpener(new SessionSettings(Duration.ofSeconds(5), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1)));
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var expansion = new SourceExpansion(List.of(new ContinuousDiscoverer(sessions)),
                new DiscoveryProperties(interval, Duration.ofMinutes(10)), Clock.systemUTC());
        var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                io.pgharvest.kind.TestEndpoints.of(sessions))
                .withExpansion(expansion));
        service.start();
        return service;
    }
}
