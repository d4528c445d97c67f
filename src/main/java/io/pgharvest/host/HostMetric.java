package io.pgharvest.host;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.util.List;
import java.util.Map;

/**
 * A metric of the machine pgharvest runs on, written under pgwatch's table name and keys. It is
 * collected only for sources whose server runs on this machine: for any other source the numbers
 * would describe the wrong host, so the metric is unavailable there (pgwatch's helper-function SQL
 * is the way to measure a remote host).
 */
abstract class HostMetric implements NativeMetric {

    private final String name;

    HostMetric(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    /** Throws {@link Unavailable} unless the source's server is on this machine. */
    static void requireLocal(NativeTarget target) throws Unavailable {
        if (!target.onThisHost()) {
            throw new Unavailable("the server (" + (target.serverAddress() == null ? "not PostgreSQL"
                    : target.serverAddress()) + ") is not on the machine pgharvest runs on; host metrics are"
                    + " collected only for servers on this machine (a Unix socket, a loopback address or one of"
                    + " this machine's addresses)");
        }
    }

    static List<Measurement.Row> oneRow(Map<String, Object> values) {
        return List.of(new Measurement.Row(values, Map.of()));
    }

    /** Two decimals, as pgwatch rounds percentages and load averages. */
    static double round2(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
