package io.pgharvest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A sink's destination as the status API shows it: where it writes, never a credential. */
class SinkDestinationTest {

    @Test
    void aDatabaseOrReceiverUrlShowsHostPortAndPathOnly() {
        var postgres = new SinkProperties(SinkType.POSTGRES, null, "postgresql://writer:s3cret@store.example:5433/metrics"
                + "?sslmode=require&password=other", null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null);
        assertThat(postgres.destination()).isEqualTo("postgresql://store.example:5433/metrics");
        var jdbc = new SinkProperties(SinkType.POSTGRES, null, "jdbc:postgresql://db/m?user=u&password=p", null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null);
        assertThat(jdbc.destination()).isEqualTo("postgresql://db/m");
        var remote = new SinkProperties(SinkType.PROMETHEUS_REMOTE_WRITE, null, "https://user:pw@vm.example/api/v1/write?t=x",
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, "token", null, null, null, null);
        assertThat(remote.destination()).isEqualTo("https://vm.example/api/v1/write").doesNotContain("pw");
        assertThat(SinkProperties.defaults(SinkType.PROMETHEUS, null).destination())
                .isEqualTo("scrape endpoint http://*:9187/metrics");
    }
}
