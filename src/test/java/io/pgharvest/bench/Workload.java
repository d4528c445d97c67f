package io.pgharvest.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured run: which collector, how many sources, which metrics at which intervals, which
 * sink and JVM flags, how long to warm up and measure.
 *
 * @param group the result group (idle, scaling, naive, jvm, pgwatch)
 * @param collector pgharvest or naive
 * @param intervals metric -> interval in seconds, the same for every source
 * @param sink jsonfile or postgres
 * @param jvmOptions the JVM options file ({@code java @file}); null for the JVM's defaults
 */
record Workload(String group, String collector, int sources, Map<String, Integer> intervals, String sink,
        Path jvmOptions, Duration warmup, Duration window) {

    Workload {
        intervals = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(intervals));
    }

    String label() {
        return group + "-" + collector + "-" + sources + (group.equals("jvm") ? "-" + jvm() : "");
    }

    /** "default", or the options file's name. */
    String jvm() {
        return jvmOptions == null ? "default" : jvmOptions.getFileName().toString();
    }

    /** The grid period: GCD of the intervals, in seconds. */
    int tickPeriodSeconds() {
        long gcd = 0;
        for (int interval : intervals.values()) {
            gcd = gcd(gcd, interval);
        }
        return (int) Math.max(gcd, 1);
    }

    /** Greatest common divisor; {@code gcd(0, b)} is {@code b}, so it folds over a list from 0. */
    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
