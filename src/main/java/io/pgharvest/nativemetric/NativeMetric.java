package io.pgharvest.nativemetric;

import io.pgharvest.model.Measurement;
import java.util.List;
import java.util.Map;

/**
 * A metric collected by pgharvest's own code instead of SQL: the implementation a definition's
 * {@code native} key names ({@link io.pgharvest.model.NativeNames}). The engine runs it on the
 * metric's schedule for each source that selects it, after the tick's round trip, and delivers its
 * rows like any metric's (the source's name and tags, the definition's storage name).
 *
 * <p>Implementations are Spring components; the {@link NativeMetricRegistry} finds them by
 * {@link #name()}.
 */
public interface NativeMetric {

    /** The name a definition's {@code native} key refers to. */
    String name();

    /**
     * A collector for one source. It keeps that source's state between ticks (previous CPU
     * counters, log file offsets), is used by the source's reaper thread only, and is dropped
     * when the source stops collecting the metric.
     */
    Collector newCollector();

    /** Collects one source's rows; throwing fails only this metric, on this tick. */
    @FunctionalInterface
    interface Collector {

        /**
         * The measurements of this tick by storage name. By default the rows of {@link #collect}
         * under the definition's storage name; a metric that reads several families at once (a
         * Prometheus page) delivers each under a name of its own.
         *
         * @param storageName the definition's storage name
         */
        default Map<String, List<Measurement.Row>> collectByName(NativeTarget target, String storageName)
                throws Exception {
            return Map.of(storageName, collect(target));
        }

        /**
         * @return the rows of this tick ({@code tag_*} keys are not special here: tags go in
         *     {@link Measurement.Row#tags()})
         * @throws Unavailable when the metric cannot be collected for this source at all (shown as
         *     the lane {@code unavailable} with the reason)
         * @throws Exception any other failure, shown as the metric's last error
         */
        List<Measurement.Row> collect(NativeTarget target) throws Exception;
    }

    /** The metric cannot be collected for this source (not a failure of the metric): says why. */
    final class Unavailable extends Exception {

        public Unavailable(String reason) {
            super(reason, null, false, false);
        }
    }
}
