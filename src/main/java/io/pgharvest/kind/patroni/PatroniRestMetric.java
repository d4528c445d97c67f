package io.pgharvest.kind.patroni;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.util.List;
import java.util.Map;

/**
 * Patroni's REST API metrics as a native metric ({@value #NAME}): every tick it is due, the
 * member's {@code /metrics} page is read and each {@code patroni_*} family the dashboards read is
 * delivered as a metric named after it ({@link PatroniApiMetrics}). {@link PatroniDiscoverer} adds
 * it to every member it finds, with the member's {@code api_url}; the member's reaper runs it
 * after the tick's round trip, so its outcome is in the member's ledger and status like any metric's.
 */
final class PatroniRestMetric implements NativeMetric {

    static final String NAME = "patroni_rest_api";

    /** The definition discovery adds to each member. */
    static final MetricDefinition DEFINITION = MetricDefinition.nativeMetric(NAME,
            "Patroni's REST API /metrics: the patroni_* families, each stored under its own name",
            List.of("*"), NodeStatus.ANY, null, NAME);

    private final PatroniApiMetrics api;

    PatroniRestMetric(PatroniApiMetrics api) {
        this.api = api;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Collector newCollector() {
        return new Collector() {
            @Override
            public List<Measurement.Row> collect(NativeTarget target) {
                throw new UnsupportedOperationException("delivers one measurement per family: collectByName");
            }

            @Override
            public Map<String, List<Measurement.Row>> collectByName(NativeTarget target, String storageName)
                    throws Exception {
                if (target.restApi() == null) {
                    throw new Unavailable("the source is not a Patroni member that publishes its REST API (api_url)");
                }
                return api.read(target.restApi());
            }
        };
    }
}
