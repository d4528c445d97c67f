package io.pgharvest.host;

import java.util.Map;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.hardware.HWDiskStore;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.util.FileUtil;
import org.springframework.stereotype.Component;

/**
 * The machine pgharvest runs on, read through OSHI. One instance for all sources: OSHI caches
 * what does not change (the processor, the memory objects) and reads counters fresh on each call.
 * OSHI and JNA are loaded at the first host metric collected, not at start-up: a collector that
 * selects none pays nothing for them.
 */
@Component
final class HostProbe {

    /** Initialised on first use (the JVM's lazy, thread-safe class initialisation). */
    private static final class Oshi {
        static final HardwareAbstractionLayer HARDWARE = new SystemInfo().getHardware();
        static final CentralProcessor PROCESSOR = HARDWARE.getProcessor();
        static final GlobalMemory MEMORY = HARDWARE.getMemory();
    }

    /** 1, 5 and 15 minute load averages; negative where the operating system has none. */
    double[] loadAverages() {
        return Oshi.PROCESSOR.getSystemLoadAverage(3);
    }

    /** Cumulative CPU ticks of all processors, indexed by {@link CentralProcessor.TickType#getIndex()}. */
    long[] cpuTicks() {
        return Oshi.PROCESSOR.getSystemCpuLoadTicks();
    }

    int logicalProcessors() {
        return Oshi.PROCESSOR.getLogicalProcessorCount();
    }

    GlobalMemory memory() {
        return Oshi.MEMORY;
    }

    /**
     * Linux's {@code /proc/meminfo} (kB values by key), for the numbers OSHI does not expose (free,
     * buffers, page cache); empty elsewhere.
     */
    Map<String, String> meminfo() {
        return FileUtil.getKeyValueMapFromFile("/proc/meminfo", ":");
    }

    /** Reads, writes and bytes of every disk since boot, summed. */
    long[] diskIoTotals() {
        long reads = 0;
        long writes = 0;
        long readBytes = 0;
        long writeBytes = 0;
        for (HWDiskStore disk : Oshi.HARDWARE.getDiskStores()) {
            reads += disk.getReads();
            writes += disk.getWrites();
            readBytes += disk.getReadBytes();
            writeBytes += disk.getWriteBytes();
        }
        return new long[] {reads, writes, readBytes, writeBytes};
    }
}
