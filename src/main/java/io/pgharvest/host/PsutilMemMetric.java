package io.pgharvest.host;

import java.util.LinkedHashMap;
import java.util.Map;
import oshi.hardware.GlobalMemory;
import oshi.hardware.VirtualMemory;
import org.springframework.stereotype.Component;

/**
 * pgwatch's {@code psutil_mem} in bytes, with psutil's meanings: {@code used} is what neither is
 * free nor holds buffers and page cache, {@code percent} the share not available. Free memory and
 * buffers/cache come from Linux's {@code /proc/meminfo}; elsewhere they are null and {@code used}
 * is total minus available.
 */
@Component
final class PsutilMemMetric extends HostMetric {

    private static final long KIB = 1024;

    private final HostProbe host;

    PsutilMemMetric(HostProbe host) {
        super("psutil_mem");
        this.host = host;
    }

    @Override
    public Collector newCollector() {
        return target -> {
            requireLocal(target);
            GlobalMemory memory = host.memory();
            long total = memory.getTotal();
            long available = memory.getAvailable();
            Map<String, String> meminfo = host.meminfo();
            Long free = kib(meminfo, "MemFree");
            Long buffers = kib(meminfo, "Buffers");
            Long cached = kib(meminfo, "Cached");
            Long reclaimable = kib(meminfo, "SReclaimable");
            Long buffCache = buffers == null || cached == null ? null
                    : buffers + cached + (reclaimable == null ? 0 : reclaimable);
            long used = free == null || buffCache == null || total - free - buffCache < 0 ? total - available
                    : total - free - buffCache;
            VirtualMemory swap = memory.getVirtualMemory();
            long swapTotal = swap.getSwapTotal();
            long swapUsed = swap.getSwapUsed();
            var values = new LinkedHashMap<String, Object>();
            values.put("total", total);
            values.put("used", used);
            values.put("free", free);
            values.put("buff_cache", buffCache);
            values.put("available", available);
            values.put("percent", total == 0 ? 0.0 : round2(100.0 * (total - available) / total));
            values.put("swap_total", swapTotal);
            values.put("swap_used", swapUsed);
            values.put("swap_free", swapTotal - swapUsed);
            values.put("swap_percent", swapTotal == 0 ? 0.0 : round2(100.0 * swapUsed / swapTotal));
            return oneRow(values);
        };
    }

    /** A {@code /proc/meminfo} value ("123 kB") in bytes, or null when absent. */
    private static Long kib(Map<String, String> meminfo, String key) {
        String value = meminfo.get(key);
        if (value == null) {
            return null;
        }
        String digits = value.trim().split("\\s+")[0];
        try {
            return Long.parseLong(digits) * KIB;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
