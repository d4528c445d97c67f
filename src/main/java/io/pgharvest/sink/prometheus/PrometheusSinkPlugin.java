package io.pgharvest.sink.prometheus;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkOption;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import java.nio.file.Path;
import java.util.List;

/** The {@code prometheus} kind of sink: a scrape endpoint, refusing the admin API's own port. */
public final class PrometheusSinkPlugin implements SinkPlugin<PrometheusSinkProperties> {

    private static final List<SinkOption> OPTIONS = List.of(
            new SinkOption("port", "`9187`", "Port of the scrape endpoint; must differ from `server.port`. 9187 is "
                    + "the port registered for PostgreSQL exporters. `0` picks a free port"),
            new SinkOption("path", "`/metrics`", "URL path of the scrape endpoint"),
            new SinkOption("address", "all interfaces", "The scrape endpoint's bind address, e.g. `127.0.0.1` or "
                    + "the address of the network Prometheus scrapes from"),
            new SinkOption("staleness", "`10m`", "A (source, metric) that has not reported for this long — or "
                    + "twice its own reporting interval, if longer — disappears from the endpoint"));

    @Override
    public String type() {
        return "prometheus";
    }

    @Override
    public String description() {
        return "A scrape endpoint with the latest value of every series, in the Prometheus text format";
    }

    @Override
    public Class<PrometheusSinkProperties> settingsClass() {
        return PrometheusSinkProperties.class;
    }

    @Override
    public List<SinkOption> options() {
        return OPTIONS;
    }

    @Override
    public List<String> problems(PrometheusSinkProperties settings, String prefix) {
        return settings.problems(prefix);
    }

    @Override
    public String destination(PrometheusSinkProperties settings, Path dataDir) {
        return settings.destination();
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
