package io.pgharvest.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.Source;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.nativemetric.ServerLocality;
import io.pgharvest.reaper.ReaperProperties;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The built-in host metrics end to end: selected by a source like any metric, collected by the
 * engine for a server on this machine under pgwatch's table names, and reported as unavailable
 * (while the source's SQL metrics go on) when the server is not on this machine.
 */
class HostMetricsEngineTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final List<String> HOST_METRICS = List.of("cpu_load", "psutil_cpu", "psutil_mem", "psutil_disk",
            "psutil_disk_io_total");

    @Test
    void aLocalSourceGetsEveryHostMetricUnderPgwatchsNames(@TempDir Path dir) throws Exception {
        var publisher = new RecordingPublisher();
        ReaperService service = start(dir, publisher, ServerLocality.system());
        try {
            var measurements = publisher.await(m -> HOST_METRICS.contains(m.metric()), 2 * HOST_METRICS.size(),
                    Duration.ofSeconds(20));
            Map<String, List<Measurement>> byMetric = measurements.stream()
                    .collect(Collectors.groupingBy(Measurement::metric));
            assertThat(byMetric).containsOnlyKeys(HOST_METRICS);
            assertThat(measurements).allSatisfy(m -> assertThat(m.tags()).containsEntry("env", "host-test"));
            assertThat(byMetric.get("psutil_mem").getFirst().rows().getFirst().values().get("total"))
                    .satisfies(total -> assertThat((Long) total).isPositive());
            assertThat(byMetric.get("cpu_load").getFirst().rows().getFirst().values().get("load_1min"))
                    .satisfies(load -> assertThat((Double) load).isNotNegative());
            assertThat(byMetric.get("psutil_disk").getFirst().rows()).extracting(r -> r.tags().get("path"))
                    .contains(pg.queryString("postgres", "show data_directory"));
            assertThat(lanes(service)).containsValues(MetricLane.NATIVE).doesNotContainValue(MetricLane.UNAVAILABLE);
        } finally {
            service.stop();
        }
    }

    @Test
    void aSourceOnAnotherMachineGetsNoHostMetricsAndItsStatusSaysWhy(@TempDir Path dir) throws Exception {
        var publisher = new RecordingPublisher();
        // This process sees the test server on its loopback; told that no address is local, it is "elsewhere".
        ReaperService service = start(dir, publisher, new ServerLocality(address -> false));
        try {
            publisher.await(m -> m.metric().equals("db_size"), 2, Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                Map<String, MetricRuntimeStatus> status = service.status("host").orElseThrow().metrics().stream()
                        .collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
                for (String metric : HOST_METRICS) {
                    assertThat(status.get(metric).lane()).as(metric).isEqualTo(MetricLane.UNAVAILABLE);
                    assertThat(status.get(metric).lastError()).as(metric)
                            .contains("is not on the machine pgharvest runs on");
                }
            });
            assertThat(publisher.all()).noneMatch(m -> HOST_METRICS.contains(m.metric()));
        } finally {
            service.stop();
        }
    }

    private static Map<String, MetricLane> lanes(ReaperService service) {
        return service.status("host").orElseThrow().metrics().stream()
                .filter(m -> HOST_METRICS.contains(m.name()))
                .collect(Collectors.toMap(MetricRuntimeStatus::name, MetricRuntimeStatus::lane));
    }

    private static ReaperService start(Path dir, RecordingPublisher publisher, ServerLocality locality) {
        ConfigStore store = TestStores.inDirectory(dir);
        var probe = new HostProbe();
        var natives = new NativeMetricRegistry(List.of(new CpuLoadMetric(probe), new PsutilCpuMetric(probe),
                new PsutilMemMetric(probe), new PsutilDiskMetric(), new PsutilDiskIoMetric(probe)), locality);
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var sessions = new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1)));
        var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                io.pgharvest.kind.TestEndpoints.of(sessions))
                .withNatives(natives));
        service.start();
        var selection = new java.util.HashMap<String, Integer>();
        HOST_METRICS.forEach(m -> selection.put(m, 1));
        selection.put("db_size", 1);
        store.putSource(new Source("host", pg.connStr("postgres"), null, null, true, null, selection, null, null,
                Map.of("env", "host-test"), false, null, null));
        return service;
    }
}
