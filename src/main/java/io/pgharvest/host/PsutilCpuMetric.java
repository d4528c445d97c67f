package io.pgharvest.host;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeTarget;
import java.util.LinkedHashMap;
import java.util.List;
import oshi.hardware.CentralProcessor.TickType;
import org.springframework.stereotype.Component;

/**
 * pgwatch's {@code psutil_cpu}: CPU time shares in percent since the source's previous collection
 * (since boot on the first), utilisation (100 minus idle, I/O wait and steal), and the 1 and 5
 * minute load averages, raw and divided by the number of logical processors.
 */
@Component
final class PsutilCpuMetric extends HostMetric {

    private final HostProbe host;

    PsutilCpuMetric(HostProbe host) {
        super("psutil_cpu");
        this.host = host;
    }

    @Override
    public Collector newCollector() {
        return new Shares();
    }

    /** Keeps the source's previous tick counters: each collection covers the time since the last. */
    private final class Shares implements Collector {

        private long[] previous;

        @Override
        public List<Measurement.Row> collect(NativeTarget target) throws Unavailable {
            requireLocal(target);
            long[] now = host.cpuTicks();
            long[] delta = now.clone();
            if (previous != null) {
                for (int i = 0; i < delta.length; i++) {
                    delta[i] -= previous[i];
                }
            }
            previous = now;
            double total = 0;
            for (long ticks : delta) {
                total += ticks;
            }
            double[] load = host.loadAverages();
            double cpus = Math.max(1, host.logicalProcessors());
            var values = new LinkedHashMap<String, Object>();
            values.put("cpu_utilization", total <= 0 ? 0.0 : round2(100 - percent(total, delta,
                    TickType.IDLE, TickType.IOWAIT, TickType.STEAL)));
            values.put("load_1m_norm", round2(load[0] / cpus));
            values.put("load_1m", round2(load[0]));
            values.put("load_5m_norm", round2(load[1] / cpus));
            values.put("load_5m", round2(load[1]));
            values.put("user", percent(total, delta, TickType.USER));
            values.put("system", percent(total, delta, TickType.SYSTEM));
            values.put("idle", percent(total, delta, TickType.IDLE));
            values.put("iowait", percent(total, delta, TickType.IOWAIT));
            values.put("irqs", percent(total, delta, TickType.IRQ, TickType.SOFTIRQ));
            values.put("other", percent(total, delta, TickType.STEAL));
            return oneRow(values);
        }

        private static double percent(double total, long[] delta, TickType... types) {
            if (total <= 0) {
                return 0.0;
            }
            long sum = 0;
            for (TickType type : types) {
                sum += delta[type.getIndex()];
            }
            return round2(100.0 * sum / total);
        }
    }
}
