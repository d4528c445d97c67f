package io.pgharvest.sink.prometheus;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkKind;
import io.pgharvest.sink.SinkOption;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import java.util.List;

/** The {@code prometheus} kind of sink: a scrape endpoint, refusing the admin API's own port. */
public final class PrometheusSinkPlugin implements SinkPlugin<PrometheusSinkProperties> {

    private static final SinkKind<PrometheusSinkProperties> KIND = new SinkKind<>("prometheus",
            "A scrape endpoint with the latest value of every series, in the Prometheus text format",
            PrometheusSinkProperties.class, List.of(
                new SinkOption("port", "`9187`", "Port of the scrape endpoint; must differ from `server.port`. 9187 is "
                        + "the port registered for PostgreSQL exporters. `0` picks a free port"),
                new SinkOption("path", "`/metrics`", "URL path of the scrape endpoint"),
                new SinkOption("address", "all interfaces", "The scrape endpoint's bind address, e.g. `127.0.0.1` or "
                        + "the address of the network Prometheus scrapes from"),
                new SinkOption("staleness", "`10m`", "A (source, metric) that has not reported for this long — or "
                        + "twice its own reporting interval, if longer — disappears from the endpoint")));

    @Override
    public SinkKind<PrometheusSinkProperties> kind() {
        return KIND;
    }

    @Override
    public Sink create(SinkSetup<PrometheusSinkProperties> setup) {
        int port = setup.settings().port();
        if (port != 0 && port == setup.serverPort()) {
            throw new IllegalStateException(setup.property() + ".port: " + port
                    + " is the admin API's server.port; the Prometheus endpoint needs a port of its own");
        }
        return PrometheusSink.create(setup.property(), setup.name(), setup.settings(), setup.catalog(), setup.clock(),
                setup.instanceId());
    }
}
