package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.InvalidConfigException;
import io.pgharvest.store.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A native metric in the store's metrics.yaml: written under the key {@code native}, read back the same. */
@Tag("fast")
class NativeMetricFileTest {

    @TempDir
    Path dataDir;

    @Test
    void aNativeMetricIsWrittenAsPgwatchYamlWithANativeKeyAndReadBack() throws Exception {
        MetricDefinition metric = MetricDefinition.nativeMetric("host_memory", "memory of the machine pgharvest runs on",
                List.of("*"), NodeStatus.PRIMARY, "psutil_mem", "psutil_mem");
        TestStores.inDirectory(dataDir).putMetric(metric);

        String yaml = Files.readString(dataDir.resolve("metrics.yaml"));
        assertThat(yaml).contains("native: psutil_mem").doesNotContain("sqls");
        assertThat(TestStores.inDirectory(dataDir).snapshot().metrics().get("host_memory")).isEqualTo(metric);
    }

    @Test
    void anUnknownNativeImplementationIsRefusedNamingTheField() {
        ConfigStore store = TestStores.inDirectory(dataDir);
        MetricDefinition metric = MetricDefinition.nativeMetric("host_vmstat", "vmstat of the machine", List.of(),
                NodeStatus.ANY, null, "vmstat");

        assertThatThrownBy(() -> store.putMetric(metric)).isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("native").hasMessageContaining("unknown native implementation 'vmstat'");
        assertThat(store.snapshot().metrics()).doesNotContainKey("host_vmstat");
    }
}
