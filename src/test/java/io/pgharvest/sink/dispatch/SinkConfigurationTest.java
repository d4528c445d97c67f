package io.pgharvest.sink.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.jsonfile.JsonFileSinkProperties;
import io.pgharvest.sink.prometheus.PrometheusSinkProperties;
import io.pgharvest.support.plugin.PluginRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@Tag("fast")
class SinkConfigurationTest {

    @TempDir
    Path dataDir;

    private final ApplicationContextRunner runner = SinkContexts.runner();

    @Test
    void withNoSinksConfiguredMeasurementsGoToJsonLinesUnderTheDataDirAndToPrometheus() throws Exception {
        // The default sink set binds the default port; a test that cannot get it fails, it never skips.
        await("the default Prometheus port 9187 is free on this machine").atMost(Duration.ofSeconds(20))
                .until(() -> portIsFree(PrometheusSinkProperties.DEFAULT_PORT));
        runner.withPropertyValues("pgharvest.data-dir=" + dataDir).run(context -> {
            assertThat(context).hasNotFailed();
            SinkDispatcher dispatcher = context.getBean(SinkDispatcher.class);
            assertThat(context.getBean(MeasurementPublisher.class)).isSameAs(dispatcher);
            assertThat(dispatcher.statuses()).extracting(SinkStatus::name).containsExactly("jsonfile", "prometheus");
            assertThat(dispatcher.isRunning()).isTrue();
            dispatcher.publish(List.of(new Measurement("demo", "instance_up", Instant.now(),
                    List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of())));

            Path file = dataDir.resolve("measurements.jsonl");
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(file) && Files.size(file) > 0);
            assertThat(Files.readString(file)).contains("\"source\":\"demo\"", "\"instance_up\":1");
            await().atMost(Duration.ofSeconds(10)).until(() -> scrape(PrometheusSinkProperties.DEFAULT_PORT)
                    .contains("pgharvest_instance_up{source=\"demo\"} 1.0"));
        });
    }

    @Test
    void optionsLeftOutTakeTheDocumentedDefaults() {
        runner.withPropertyValues("pgharvest.data-dir=" + dataDir, "pgharvest.sinks[0].type=jsonfile",
                "pgharvest.sinks[0].path=/tmp/x.jsonl", "pgharvest.sinks[1].type=prometheus",
                "pgharvest.sinks[1].port=0").run(context -> {
                    @SuppressWarnings("unchecked") // the bean SinkConfiguration.sinkRegistry() makes
                    PluginRegistry<SinkPlugin<?>> registry = context.getBean("sinkRegistry", PluginRegistry.class);
                    List<BoundSink> sinks = new SinkEntries(registry).bind(context.getEnvironment());
                    assertThat(sinks).extracting(BoundSink::name).containsExactly("jsonfile", "prometheus");
                    assertThat(sinks.get(0).common()).isEqualTo(SinkEntryProperties.defaults("jsonfile"));
                    assertThat(sinks.get(0).settings())
                            .isEqualTo(JsonFileSinkProperties.writing(java.nio.file.Path.of("/tmp/x.jsonl")));
                    assertThat(sinks.get(1).common()).isEqualTo(SinkEntryProperties.defaults("prometheus"));
                    assertThat(sinks.get(1).settings()).isEqualTo(PrometheusSinkProperties.onPort(0));
                    assertThat(context.getBean(DataDirectory.class).path()).isEqualTo(dataDir);
                    // The data directory is bound once: no other properties class holds it.
                    assertThat(context.getBeansOfType(HarvestProperties.class)).hasSize(1);
                });
    }

    @Test
    void theDefaultPrometheusEndpointStepsAsideWhenItsPortIsTaken() throws Exception {
        try (var taken = new ServerSocket()) {
            try {
                taken.bind(new InetSocketAddress(PrometheusSinkProperties.DEFAULT_PORT));
            } catch (IOException e) {
                // Taken by someone else already: the situation under test.
            }
            runner.withPropertyValues("pgharvest.data-dir=" + dataDir).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(SinkDispatcher.class).statuses()).extracting(SinkStatus::name)
                        .containsExactly("jsonfile");
            });
        }
    }

    @Test
    void anExplicitPrometheusSinkOnATakenPortFailsStartUp() throws Exception {
        try (var taken = new ServerSocket(0)) {
            runner.withPropertyValues("pgharvest.data-dir=" + dataDir, "pgharvest.sinks[0].type=prometheus",
                    "pgharvest.sinks[0].port=" + taken.getLocalPort()).run(context ->
                    assertThat(messages(context.getStartupFailure()))
                            .contains("pgharvest.sinks[0].port: cannot listen on port " + taken.getLocalPort()));
        }
    }

    @Test
    void aBadSinkUrlFailsStartUpNamingThePropertyWithoutEchoingIt() {
        runner.withPropertyValues("pgharvest.data-dir=" + dataDir, "pgharvest.sinks[0].type=jsonfile",
                "pgharvest.sinks[0].path=" + dataDir.resolve("m.jsonl"), "pgharvest.sinks[1].type=postgres",
                "pgharvest.sinks[1].url=mysql://admin:hunter2@db/metrics").run(context -> {
                    assertThat(context).hasFailed();
                    String messages = messages(context.getStartupFailure());
                    assertThat(messages).contains("pgharvest.sinks[1].url must be a postgresql:// URI or a "
                            + "jdbc:postgresql: URL").doesNotContain("hunter2");
                });
    }

    @Test
    void everyInvalidOptionIsReportedWithItsPropertyName() {
        runner.withPropertyValues("pgharvest.sinks[0].type=postgres", "pgharvest.sinks[0].url=postgresql://db/m",
                "pgharvest.sinks[0].partition-interval=30m", "pgharvest.sinks[0].batch-size=0",
                "pgharvest.sinks[1].type=prometheus", "pgharvest.sinks[1].path=metrics").run(context -> {
                    String messages = messages(context.getStartupFailure());
                    assertThat(messages).contains("pgharvest.sinks[0].partition-interval must be a whole number of hours",
                            "pgharvest.sinks[0].batch-size must be between 1 and 100000 (was 0)",
                            "pgharvest.sinks[1].path must start with '/'");
                });
    }

    @Test
    void anUnknownSinkTypeFailsNamingTheProperty() {
        runner.withPropertyValues("pgharvest.sinks[0].type=kafka").run(context -> {
            assertThat(messages(context.getStartupFailure())).contains("pgharvest.sinks[0].type");
        });
    }

    @Test
    void thePrometheusEndpointMayNotShareTheAdminApiPort() {
        runner.withPropertyValues("server.port=9187", "pgharvest.sinks[0].type=prometheus").run(context ->
                assertThat(messages(context.getStartupFailure()))
                        .contains("pgharvest.sinks[0].port: 9187 is the admin API's server.port"));
    }

    @Test
    void aSinkThatIsDownIsDownInTheSinksHealthComponentButPgharvestStaysReady() throws Exception {
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
                        EndpointAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                        HealthContributorAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                        AvailabilityProbesAutoConfiguration.class))
                .withUserConfiguration(SinkContexts.SinkComponents.class)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("management.endpoint.health.probes.enabled=true",
                        "pgharvest.data-dir=" + dataDir,
                        "pgharvest.sinks[0].type=postgres",
                        "pgharvest.sinks[0].url=postgresql://nobody:secret@127.0.0.1:" + closedPort + "/storage",
                        "pgharvest.sinks[0].batch-delay=10ms",
                        "pgharvest.sinks[1].type=prometheus", "pgharvest.sinks[1].port=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SinkDispatcher dispatcher = context.getBean(SinkDispatcher.class);
                    assertThat(dispatcher.isRunning()).isTrue();
                    dispatcher.publish(List.of(new Measurement("src", "instance_up", Instant.now(),
                            List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of())));
                    HealthEndpoint health = context.getBean(HealthEndpoint.class);
                    // Down is known once a probe or write failed (before that the sink is not yet UP either).
                    await().atMost(Duration.ofSeconds(30)).until(() -> dispatcher.statuses().getFirst().lastError() != null);

                    // A sink that does not accept writes keeps its measurements: pgharvest stays UP.
                    // (The runner never announces liveness, so only the sinks' share of the root is checked.)
                    assertThat(health.healthForPath("sinks").getStatus()).isEqualTo(Status.UP);
                    var postgres = (IndicatedHealthDescriptor) health.healthForPath("sinks", "postgres");
                    assertThat(postgres.getStatus().getCode()).isEqualTo("SPILLING");
                    assertThat(postgres.getDetails()).containsEntry("type", "postgres").containsKey("lastError");
                    assertThat(postgres.getDetails().get("lastError").toString()).doesNotContain("secret");
                    assertThat(health.healthForPath("sinks", "prometheus").getStatus()).isEqualTo(Status.UP);
                    // What SpringApplication announces once started; the runner does not.
                    AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
                    assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
                });
    }

    private static String messages(Throwable failure) {
        return SinkContexts.messages(failure);
    }

    private static boolean portIsFree(int port) {
        try (var socket = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String scrape(int port) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }
}
