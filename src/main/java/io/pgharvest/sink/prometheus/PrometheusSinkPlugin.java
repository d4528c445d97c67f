package io.pgharvest.sink.prometheus;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;

/** The {@code prometheus} kind of sink: a scrape endpoint, refusing the admin API's own port. */
public final class PrometheusSinkPlugin implements SinkPlugin<PrometheusSinkProperties> {

    private static final PluginKind<PrometheusSinkProperties> KIND = new PluginKind<>(FAMILY, "prometheus",
            "A scrape endpoint with the latest value of every series, in the Prometheus text format",
            PrometheusSinkProperties.class, List.of(
                new PluginOption("port", "`9187`", "Port of the scrape endpoint; must differ from `server.port`. 9187 is "
                        + "the port registered for PostgreSQL exporters. `0` picks a free port"),
                new PluginOption("path", "`/metrics`", "URL path of the scrape endpoint"),
                new PluginOption("address", "all interfaces", "The scrape endpoint's bind address, e.g. `127.0.0.1` or "
                        + "the address of the network Prometheus scrapes from"),
                new PluginOption("staleness", "`10m`", "A (source, metric) that has not reported for this long — or "
                        + "twice its own reporting interval, if longer — disappears from the endpoint")));

    @Override
    public PluginKind<PrometheusSinkProperties> kind() {
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
