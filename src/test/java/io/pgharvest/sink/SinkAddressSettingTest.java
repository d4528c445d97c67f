package io.pgharvest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A bind address is a setting of the Prometheus endpoint only; elsewhere it is refused, not ignored. */
@Tag("fast")
class SinkAddressSettingTest {

    @Test
    void anAddressOnASinkWithoutAnEndpointIsRefusedNamingTheProperty() {
        var jsonfile = new SinkProperties(SinkType.JSONFILE, "j", null, null, null, null, "/tmp/x.jsonl", null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, "127.0.0.1");
        var prometheus = new SinkProperties(SinkType.PROMETHEUS, "p", null, null, null, 0, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, "127.0.0.1");

        assertThat(jsonfile.problems("pgharvest.sinks[1]")).containsExactly(
                "pgharvest.sinks[1].address applies to prometheus sinks only (the scrape endpoint's bind address)");
        assertThat(prometheus.problems("pgharvest.sinks[0]")).isEmpty();
    }
}
