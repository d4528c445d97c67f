package io.pgharvest.reaper;

import io.pgharvest.kind.TestEndpoints;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.discovery.DiscoveredSource;
import io.pgharvest.discovery.DiscoveryException;
import io.pgharvest.discovery.DiscoveryProperties;
import io.pgharvest.discovery.SourceDiscoverer;
import io.pgharvest.discovery.SourceExpansion;
import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The discovery seam: whatever a {@link SourceDiscoverer} returns is what the engine collects;
 * reapers start and retire as the set changes, a retired one keeps its last status for a while,
 * and a failing discovery keeps the last good set. The discoverer here is a hand-written fake
 * (the real ones have their own tests); the sources it returns are collected from a real server.
 */
class DiscoverySeamTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private final RecordingPublisher publisher = new RecordingPublisher();
    private final AtomicReference<List<String>> databases = new AtomicReference<>(List.of());
    private final AtomicReference<String> failure = new AtomicReference<>();
    private ConfigStore store;
    private ReaperService service;

    @BeforeAll
    static void databases() {
        pg.createDatabase("seam_a");
        pg.createDatabase("seam_b");
    }

    @BeforeEach
    void startService(@TempDir Path dir) {
        store = TestStores.inDirectory(dir);
        store.putMetric(metric("ping", "select 1 as v"));
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var expansion = new SourceExpansion(List.of(new ListedDatabases()),
                new DiscoveryProperties(Duration.ofSeconds(1), Duration.ofMinutes(10)), Clock.systemUTC());
        service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                TestEndpoints.of(ReaperTestKit.sessions()))
                .withExpansion(expansion));
        service.start();
    }

    @AfterEach
    void stopService() {
        service.stop();
    }

    @Test
    void discoveredSourcesAreStartedAndRetiredAsTheDiscoveredSetChanges() throws Exception {
        databases.set(List.of("seam_a", "seam_b"));
        store.putSource(source("fleet", pg.connStr("postgres"), Map.of("ping", 1)));
        publisher.await(m -> m.source().equals("fleet_seam_a"), 1, Duration.ofSeconds(10));
        publisher.await(m -> m.source().equals("fleet_seam_b"), 1, Duration.ofSeconds(10));
        assertThat(service.status("fleet")).as("the configured source itself is not collected").isEmpty();

        databases.set(List.of("seam_a"));
        await().atMost(Duration.ofSeconds(10)).until(() -> service.status("fleet_seam_b")
                .map(s -> s.state() == SessionState.STOPPED).orElse(false));
        DiscoveryStatus found = service.discovery("fleet").orElseThrow();
        assertThat(found.members()).extracting(DiscoveryStatus.Member::name).containsExactly("fleet_seam_a",
                "fleet_seam_b");
        assertThat(found.members().get(1).retiredAt()).isNotNull();
        assertThat(found.members().get(1).role()).isEqualTo("seam_b");
        assertThat(found.members().get(0).state()).isEqualTo(SessionState.CONNECTED);
        assertThat(service.reaperCount()).isEqualTo(1);
    }

    @Test
    void aFailingDiscoveryKeepsTheLastGoodSetAndShowsTheError() throws Exception {
        databases.set(List.of("seam_a"));
        store.putSource(source("kept", pg.connStr("postgres"), Map.of("ping", 1)));
        publisher.await(m -> m.source().equals("kept_seam_a"), 1, Duration.ofSeconds(10));

        failure.set("the catalog is not readable");
        await().atMost(Duration.ofSeconds(10)).until(() -> "the catalog is not readable".equals(
                service.discovery("kept").orElseThrow().lastError()));
        int before = publisher.of("kept_seam_a", "ping").size();
        publisher.await(m -> m.source().equals("kept_seam_a"), before + 2, Duration.ofSeconds(10));
        assertThat(service.reaperCount()).isEqualTo(1);
    }

    /** Expands every plain source into one source per database in {@link #databases}. */
    private final class ListedDatabases implements SourceDiscoverer {

        @Override
        public Set<SourceKind> kinds() {
            return Set.of(SourceKind.fromLabel("postgres"));
        }

        @Override
        public List<DiscoveredSource> discover(Source configured) throws DiscoveryException {
            if (failure.get() != null) {
                throw new DiscoveryException(failure.get());
            }
            return databases.get().stream().map(db -> new DiscoveredSource(new Source(configured.name() + "_" + db,
                    pg.connStr(db), SourceKind.fromLabel("postgres"), configured.group(), true, configured.preset(),
                    configured.metrics(), null, null, configured.tags(), false, null, null), db)).toList();
        }
    }
}
