package io.pgharvest.sink.prometheus;

import static io.pgharvest.sink.SettingChecks.checkPositive;
import static io.pgharvest.sink.SettingChecks.orDefault;

import io.pgharvest.sink.SinkSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of a {@code prometheus} sink entry of {@code pgharvest.sinks}: a scrape endpoint.
 *
 * @param port TCP port of the scrape endpoint (default 9187, the port registered for PostgreSQL
 *     exporters; 0 picks a free port); never the admin API's server.port
 * @param path URL path of the scrape endpoint (default {@code /metrics})
 * @param address the local address the scrape endpoint binds to (e.g. {@code 127.0.0.1}); all
 *     interfaces when absent
 * @param staleness a series not updated for this long (or for twice its own reporting interval,
 *     whichever is longer) disappears from the endpoint
 */
public record PrometheusSinkProperties(Integer port, String path, String address, Duration staleness)
        implements SinkSettings {

    /** Default port of the endpoint: the one registered for PostgreSQL exporters. */
    public static final int DEFAULT_PORT = 9187;
    public static final String DEFAULT_PATH = "/metrics";

    /** Absent options take their documented defaults here. */
    public PrometheusSinkProperties {
        port = orDefault(port, DEFAULT_PORT);
        path = path == null || path.isBlank() ? DEFAULT_PATH : path;
        staleness = orDefault(staleness, Duration.ofMinutes(10));
    }

    /** An endpoint on {@code port} with every other option at its default. */
    public static PrometheusSinkProperties onPort(int port) {
        return new PrometheusSinkProperties(port, null, null, null);
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        if (port < 0 || port > 65_535) {
            problems.add(prefix + ".port must be between 0 and 65535 (was " + port + ")");
        }
        if (!path.startsWith("/")) {
            problems.add(prefix + ".path must start with '/' (was '" + path + "')");
        }
        checkPositive(problems, prefix + ".staleness", staleness);
        return problems;
    }

    /** The endpoint's address, port and path. */
    @Override
    public String destination(Path dataDir) {
        return "scrape endpoint http://" + (address == null ? "*" : address) + ":"
                + (port == 0 ? "<free port>" : port) + path;
    }
}
