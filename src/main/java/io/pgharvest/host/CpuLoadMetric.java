package io.pgharvest.host;

import java.util.LinkedHashMap;
import org.springframework.stereotype.Component;

/** pgwatch's {@code cpu_load}: {@code load_1min}, {@code load_5min}, {@code load_15min}. */
@Component
final class CpuLoadMetric extends HostMetric {

    private final HostProbe host;

    CpuLoadMetric(HostProbe host) {
        super("cpu_load");
        this.host = host;
    }

    @Override
    public Collector newCollector() {
        return target -> {
            requireLocal(target);
            double[] load = host.loadAverages();
            if (load[0] < 0) {
                throw new Unavailable("this operating system reports no load averages");
            }
            var values = new LinkedHashMap<String, Object>();
            values.put("load_1min", round2(load[0]));
            values.put("load_5min", round2(load[1]));
            values.put("load_15min", round2(load[2]));
            return oneRow(values);
        };
    }
}
