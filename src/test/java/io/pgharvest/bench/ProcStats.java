package io.pgharvest.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads process figures from Linux's /proc, from outside the measured process: nothing the
 * process does (or fails to do) can change them.
 *
 * <p>CPU time is {@code utime + stime} of /proc/PID/stat in clock ticks (USER_HZ, 100 on every
 * Linux this runs on); memory and thread figures come from /proc/PID/status.
 */
final class ProcStats {

    /** USER_HZ: clock ticks per second of the CPU fields of /proc/PID/stat. */
    static final double TICKS_PER_SECOND = 100.0;

    private ProcStats() {
    }

    /** CPU, parent and memory figures of one process; empty when the process no longer exists. */
    record Stat(long pid, long parentPid, long cpuTicks, long systemTicks) {

        double cpuSeconds() {
            return cpuTicks / TICKS_PER_SECOND;
        }
    }

    /** Memory and thread figures of /proc/PID/status, in kB and threads. */
    record Status(long rssKb, long peakRssKb, int threads) {
    }

    static Optional<Stat> stat(long pid) {
        try {
            return Optional.of(parseStat(pid, Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // the process ended between listing and reading
        }
    }

    /**
     * Parses one /proc/PID/stat line. The command name (field 2) is in parentheses and may hold
     * spaces and parentheses itself, so fields are counted from the LAST ')'.
     */
    static Stat parseStat(long pid, String line) {
        String afterName = line.substring(line.lastIndexOf(')') + 2);
        String[] fields = afterName.trim().split(" +");
        // afterName starts with field 3 (state): ppid is field 4, utime 14, stime 15 (1-based).
        long parent = Long.parseLong(fields[4 - 3]);
        long utime = Long.parseLong(fields[14 - 3]);
        long stime = Long.parseLong(fields[15 - 3]);
        return new Stat(pid, parent, utime + stime, stime);
    }

    static Optional<Status> status(long pid) {
        try {
            return Optional.of(parseStatus(Files.readString(Path.of("/proc", Long.toString(pid), "status"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static Status parseStatus(String text) {
        long rss = -1;
        long hwm = -1;
        int threads = -1;
        for (String line : text.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                rss = kilobytes(line);
            } else if (line.startsWith("VmHWM:")) {
                hwm = kilobytes(line);
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.substring("Threads:".length()).trim());
            }
        }
        if (rss < 0 || hwm < 0 || threads < 0) {
            throw new IllegalArgumentException("/proc status without VmRSS, VmHWM or Threads");
        }
        return new Status(rss, hwm, threads);
    }

    private static long kilobytes(String line) {
        String value = line.substring(line.indexOf(':') + 1).trim();
        return Long.parseLong(value.substring(0, value.indexOf(' ')));
    }

    /** Every process whose parent is {@code parentPid} (one pass over /proc). */
    static List<Stat> children(long parentPid) {
        var result = new ArrayList<Stat>();
        try (var entries = Files.list(Path.of("/proc"))) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                stat(Long.parseLong(name)).filter(s -> s.parentPid() == parentPid).ifPresent(result::add);
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot list /proc", e);
        }
        return result;
    }

    /** Busy and total jiffies of all CPUs (first line of /proc/stat), for the machine's load. */
    record MachineCpu(long busy, long total) {

        static MachineCpu read() {
            try {
                String first = Files.readAllLines(Path.of("/proc/stat")).getFirst();
                String[] f = first.trim().split(" +");
                long total = 0;
                for (int i = 1; i < f.length; i++) {
                    total += Long.parseLong(f[i]);
                }
                long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
                return new MachineCpu(total - idle, total);
            } catch (IOException e) {
                throw new IllegalStateException("Cannot read /proc/stat", e);
            }
        }

        /** Share of all CPUs busy between {@code earlier} and this reading, 0..1. */
        double busyShareSince(MachineCpu earlier) {
            long dt = total - earlier.total;
            return dt <= 0 ? 0 : (double) (busy - earlier.busy) / dt;
        }
    }
}
