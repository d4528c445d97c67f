package io.pgharvest.host;

import java.util.LinkedHashMap;
import org.springframework.stereotype.Component;

/**
 * pgwatch's {@code psutil_disk_io_total}: reads, writes and bytes read and written since boot,
 * summed over the machine's disks (counters; dashboards take differences).
 */
@Component
final class PsutilDiskIoMetric extends HostMetric {

    private final HostProbe host;

    PsutilDiskIoMetric(HostProbe host) {
        super("psutil_disk_io_total");
        this.host = host;
    }

    @Override
    public Collector newCollector() {
        return target -> {
            requireLocal(target);
            long[] io = host.diskIoTotals();
            var values = new LinkedHashMap<String, Object>();
            values.put("read_count", io[0]);
            values.put("write_count", io[1]);
            values.put("read_bytes", io[2]);
            values.put("write_bytes", io[3]);
            return oneRow(values);
        };
    }
}
